# Sourced by tests/nic/prepare and tests/nic/qemu-run: where the NIC test
# bed's downloaded and built pieces live (outside the source tree).
#
# TBS_NIC_CACHE overrides; otherwise /var/cache/tbsd-nic when /var/cache is
# writable (root), else ${XDG_CACHE_HOME:-$HOME/.cache}/tbsd-nic.
tbs_nic_cache_dir() {
        if [ -n "${TBS_NIC_CACHE:-}" ]; then
                echo "$TBS_NIC_CACHE"
        elif [ -w /var/cache ]; then
                echo /var/cache/tbsd-nic
        else
                echo "${XDG_CACHE_HOME:-$HOME/.cache}/tbsd-nic"
        fi
}
