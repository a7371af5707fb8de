#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# README's "Documentation" list names every guide of docs/ and every
# top-level *.md file, and each file it links to exists: a new guide is
# not left out of the list, a moved one leaves no dead link.
# Usage: check-readme-docs.sh SOURCE_DIR
set -eu
src=$1
readme=$src/README.md
rc=0
# The section: from its heading to the next one.
section=$(sed -n '/^## Documentation$/,/^## /p' "$readme")
[ -n "$section" ] || { echo "README.md: no '## Documentation' section"; exit 1; }
for f in "$src"/docs/*.md "$src"/*.md; do
        rel=${f#"$src"/}
        [ "$rel" = README.md ] && continue
        case "$section" in
        *"]($rel)"*) echo "ok: $rel listed" ;;
        *) echo "README.md: the Documentation list lacks $rel"; rc=1 ;;
        esac
done
# Every local link of the section leads to a file.
for link in $(printf '%s\n' "$section" | grep -o '](\([^)#]*\)' | sed 's/^](//'); do
        case "$link" in http*) continue ;; esac
        [ -e "$src/$link" ] || { echo "README.md: the Documentation list links to $link, which does not exist"; rc=1; }
done
exit $rc
