# Runs inside the test kernel for scripts/demo (with tests/kernel/lib.sh).
echo "== kernel: $(uname -sr) (user-mode-linux)"
for ifc in $(jq -r .interface "$TBS_SOURCE_DIR"/examples/*.json 2>/dev/null); do
        make_veth "$ifc" "${ifc:0:11}-peer" 4
done
if ! ip -br link show | grep -q .; then
        fail "no interfaces"
fi
echo "== interfaces"
ip -br link show type veth

echo "== qdiscs before"
for ifc in $(jq -r .interface "$TBS_SOURCE_DIR"/examples/*.json); do
        tc qdisc show dev "$ifc"
done
