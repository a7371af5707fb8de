# Sourced by scripts/test and scripts/demo: install the Debian 12 packages
# tbsd needs to build and test, when any is missing.

TBS_PACKAGES=(
        gcc pkg-config meson ninja-build
        libnl-3-dev libnl-route-3-dev libsystemd-dev libjson-c-dev libcmocka-dev
        user-mode-linux patchelf kmod iproute2 linuxptp dbus ethtool util-linux procps
        jq valgrind strace python3 python3-prometheus-client xz-utils zstd
        systemd man-db groff-base dpkg-dev debhelper fakeroot binutils
        prometheus
        libyuma-dev libxml2-dev netconfd yangcli python3-ncclient openssh-server openssh-client
)

tbs_missing_packages() {
        local p st
        for p in "${TBS_PACKAGES[@]}" "$@"; do
                st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
                [ "$st" = installed ] || echo "$p"
        done
}

# tbs_ensure_packages [EXTRA...]: apt-get install whatever is missing.
tbs_ensure_packages() {
        local missing
        missing=$(tbs_missing_packages "$@" | tr '\n' ' ')
        [ -n "${missing// /}" ] || return 0
        if [ "$(id -u)" != 0 ]; then
                echo "missing packages: $missing" >&2
                echo "run as root, or install them with: apt-get install $missing" >&2
                return 1
        fi
        echo "installing: $missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# tbs_build BUILDDIR [MESON OPTIONS...]: configure (once) and compile.
tbs_build() {
        local dir=$1
        shift
        local werror=false
        [ "${CI:-}" = true ] && werror=true
        if [ ! -f "$dir/build.ninja" ]; then
                meson setup "$dir" -Dwerror=$werror "$@" >/dev/null
        else
                meson configure "$dir" -Dwerror=$werror "$@" >/dev/null
        fi
        meson compile -C "$dir" >/dev/null || meson compile -C "$dir"
}
