#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every man page's .TH line names the project's version (meson.build), as
# written in the source tree: no placeholder, no stale number.
# Usage: check-man-version.sh VERSION PAGE...
set -eu
version=$1
shift
rc=0
for page in "$@"; do
        th=$(grep -m1 '^\.TH ' "$page") || { echo "$page: no .TH line"; rc=1; continue; }
        case "$th" in
        *"\"tbsd $version\""*) echo "ok: $page: tbsd $version" ;;
        *) echo "$page: .TH names another version than tbsd $version: $th"; rc=1 ;;
        esac
done
exit $rc
