# Sourced by tests/kernel/prepare-linuxptp4 and prepare-uml612: fetch
# packages of another Debian suite (trixie) into a cache folder without
# installing anything on the host. An apt run with its own sources list
# (that suite at the Debian archive the machine's apt sources name, signed
# by Debian's archive key) and its own state folders downloads them; each
# .deb is checked against the SHA256 of the signed index, as apt itself
# does, and named in any failure. The caller sets fetch_name (its name for
# messages) and has `set -euo pipefail`.

fetch_die() {
        echo "$fetch_name: FAIL: $*" >&2
        exit 1
}

# fetch_cache_dir VARIABLE LEAF: the cache folder: $VARIABLE when set, else
# /var/cache/LEAF when /var/cache is writable, else ~/.cache/LEAF.
fetch_cache_dir() {
        if [ -n "${!1:-}" ]; then
                echo "${!1}"
        elif [ -w /var/cache ]; then
                echo "/var/cache/$2"
        else
                echo "${XDG_CACHE_HOME:-$HOME/.cache}/$2"
        fi
}

# fetch_recipe_ready CACHE RECIPE: the cache was completed by this recipe.
fetch_recipe_ready() {
        [ "$(cat "$1/ready" 2>/dev/null)" = "$2" ]
}

# fetch_apt_init CACHE SUITE: a private apt for SUITE under CACHE/apt
# (sets fetch_apt_opts) with a fresh index.
fetch_apt_init() {
        local cache=$1 suite=$2 archive keyring apt_dir log
        local tool
        for tool in apt-get apt-cache dpkg-deb flock sha256sum; do
                command -v "$tool" >/dev/null || fetch_die "$tool not found"
        done
        # The archive: the first URI of a deb source in the machine's apt
        # sources (deb822 URIs: lines, or one-line deb entries).
        archive=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
                grep -v -- '-security' | head -n 1 || true)
        if [ -z "$archive" ]; then
                archive=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                        sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
                        grep -v -- '-security' | head -n 1 || true)
        fi
        [ -n "$archive" ] || fetch_die "no Debian archive found in the machine's apt sources"
        keyring=/usr/share/keyrings/debian-archive-keyring.gpg
        [ -r "$keyring" ] || fetch_die "$keyring missing (package debian-archive-keyring)"

        apt_dir=$cache/apt
        mkdir -p "$apt_dir"/state/lists/partial "$apt_dir"/cache/archives/partial "$apt_dir"/parts
        : > "$apt_dir/state/status"
        echo "deb [arch=amd64 signed-by=$keyring] $archive $suite main" > "$apt_dir/sources.list"
        fetch_apt_opts=(
                -o "Dir::Etc::sourcelist=$apt_dir/sources.list"
                -o "Dir::Etc::sourceparts=$apt_dir/parts"
                -o "Dir::Etc::preferencesparts=$apt_dir/parts"
                -o "Dir::State=$apt_dir/state"
                -o "Dir::State::status=$apt_dir/state/status"
                -o "Dir::Cache=$apt_dir/cache"
                -o "APT::Architecture=amd64"
                -o "APT::Sandbox::User=root"
        )
        fetch_archive=$archive
        log=$apt_dir/apt.log
        if ! apt-get "${fetch_apt_opts[@]}" -q update >"$log" 2>&1 || grep -q -E '^(E:|Err:)' "$log"; then
                cat "$log" >&2
                fetch_die "apt-get update of $archive $suite failed (answer above)"
        fi
}

# fetch_deb DIR PACKAGE/SUITE: download the package into DIR (emptied
# first of that package's .debs) and print the .deb's path; its SHA256 must
# be the signed index's.
fetch_deb() {
        local dir=$1 spec=$2 pkg=${2%%/*} log want got deb
        log=$dir/$pkg.log
        mkdir -p "$dir"
        rm -f "$dir/${pkg}_"*.deb
        if ! (cd "$dir" && apt-get "${fetch_apt_opts[@]}" -q download "$spec") >"$log" 2>&1; then
                cat "$log" >&2
                fetch_die "download of $spec from $fetch_archive refused (answer above)"
        fi
        set -- "$dir/${pkg}_"*.deb
        [ -f "$1" ] || fetch_die "apt-get download $spec left no ${pkg}_*.deb"
        deb=$1
        want=$(apt-cache "${fetch_apt_opts[@]}" show "$pkg=$(dpkg-deb -f "$deb" Version)" 2>/dev/null |
                sed -n 's/^SHA256: //p' | head -n 1)
        [ -n "$want" ] || fetch_die "no SHA256 for $spec in the signed index of $fetch_archive"
        got=$(sha256sum "$deb" | cut -d' ' -f1)
        [ "$got" = "$want" ] || fetch_die "$deb: SHA256 $got, the index says $want"
        echo "$deb"
}
