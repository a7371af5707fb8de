#!/bin/bash
# Each installed man page renders with man -l and groff without a warning,
# has its NAME section and no unsubstituted @VARIABLE@.
. "$(dirname "$0")/lib.sh"

root=$WORK/root
install_to "$root"
for page in $(expected_files | grep '/man/man[0-9]/'); do
        f=$root$page
        name=$(basename "$page")
        grep -q '@[A-Z_]*@' "$f" && fail "$name: unsubstituted $(grep -o '@[A-Z_]*@' "$f" | head -1)"
        warnings=$(groff -ww -man -z "$f" 2>&1)
        [ -z "$warnings" ] || { echo "$warnings"; fail "$name: groff warnings"; }
        text=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -l "$f" 2>"$WORK/man.err")
        [ ! -s "$WORK/man.err" ] || { cat "$WORK/man.err"; fail "$name: man -l warnings"; }
        grep -q '^NAME' <<<"$text" || fail "$name: no NAME section in the rendered page"
        section=${name##*.}
        title=${name%.*}
        head -1 <<<"$text" | grep -qi "^${title}(${section})" || fail "$name: rendered header is '$(head -1 <<<"$text")'"
        pass "$name renders ($(wc -l <<<"$text") lines), no warnings"
done
