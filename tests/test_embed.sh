#!/bin/sh
# make check-embed must fail when a source under src/ changes and the
# generated headers do not: checked on a copy of the tree (src/, tools/,
# the three headers), one change at a time.
cd "$(dirname "$0")/.."
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fresh() { rm -rf "$tmp/t" && mkdir -p "$tmp/t" && cp -r src tools gpukit.h gpukit_llm.h gpukit_kernels.h "$tmp/t/"; }
expect() { # expect RC WHAT CMD...: the command's exit status must be RC
    want=$1; what=$2; shift 2
    "$@" > "$tmp/out" 2>&1; rc=$?
    if [ "$rc" = "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what: exit $rc, want $want"; cat "$tmp/out"; fi
}
fresh
expect 0 "unchanged tree" python3 "$tmp/t/tools/amalgamate.py" --check
expect 0 "unchanged kernels" python3 "$tmp/t/tools/embed_kernels.py" --check
printf '/* changed */\n' >> "$tmp/t/src/core/pool.c"
expect 1 "a changed src/core/pool.c" python3 "$tmp/t/tools/amalgamate.py" --check
fresh
printf '/* changed */\n' >> "$tmp/t/src/llm/json.c"
expect 1 "a changed src/llm/json.c" python3 "$tmp/t/tools/amalgamate.py" --check
fresh
printf '// changed\n' >> "$tmp/t/src/ops/nn/norm.cu"
expect 1 "a changed src/ops/nn/norm.cu" python3 "$tmp/t/tools/embed_kernels.py" --check
fresh
printf '/* edited by hand */\n' >> "$tmp/t/gpukit.h"
expect 1 "a hand-edited gpukit.h" python3 "$tmp/t/tools/amalgamate.py" --check
fresh
sed -i 's/>>api_pool /&/; s/^core\/pool.h .*$/core\/pool.h >>no_such_anchor x/' "$tmp/t/src/gpukit.manifest"
expect 2 "a manifest anchor missing from its file" python3 "$tmp/t/tools/amalgamate.py" --check
fresh
python3 "$tmp/t/tools/amalgamate.py" --line-markers --out "$tmp" > /dev/null
n=$(grep -c '^#line 1 "src/' "$tmp/gpukit.h")
expect 0 "--line-markers emits #line markers ($n)" test "$n" -gt 40
echo "test_embed: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
