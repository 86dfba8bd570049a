#!/usr/bin/env bash
# Per-kernel SASS comparison of two builds of the library (a refactor that must not change the
# kernels): every function of both fatbins, its name demangled, its instructions without
# addresses and encodings, then one line per function: same, different, missing (only in BASE)
# or new (only in NEW), and a count of each.
#
# usage: scripts/compare-sass.sh BASE_LIB NEW_LIB   (liblowp.so, or a .o with device code)
#   LOWP_SASS_DIFF=1   also print a unified diff of every function that differs
#
# Names are compared after nvcc's per-file anonymous-namespace prefixes
# (_GLOBAL__N__<hash>_<len>_<file>_cu_<hash>) become one `(anonymous namespace)`, so a kernel
# that moved to another file keeps its name. Exit status: 0 when every function is the same.
set -u
set -o pipefail

if [[ $# -ne 2 ]]; then
  sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
fi
for lib in "$1" "$2"; do
  [[ -f "$lib" ]] || { echo "compare-sass: no file $lib" >&2; exit 2; }
done
command -v cuobjdump >/dev/null || { echo "compare-sass: cuobjdump not on PATH" >&2; exit 2; }
command -v c++filt >/dev/null || { echo "compare-sass: c++filt not on PATH" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cuobjdump -sass "$1" >"$work/base.sass" || exit 2
cuobjdump -sass "$2" >"$work/new.sass" || exit 2

python3 - "$work/base.sass" "$work/new.sass" <<'EOF'
import difflib, os, re, subprocess, sys

ANON = re.compile(r'_GLOBAL__N__[0-9a-f]+_(\d+)_')

def strip_anon(text):
    """Replaces every nvcc anonymous-namespace identifier, _GLOBAL__N__<hash>_<n>_<n chars of the
    file name>_<hash> with its length in front, by the plain one: 12_GLOBAL__N_1."""
    out, i = [], 0
    for m in ANON.finditer(text):
        if m.start() < i:
            continue
        end = re.match(r'_[0-9a-f]+', text[m.end() + int(m.group(1)):])
        if end is None:
            continue
        ident_end = m.end() + int(m.group(1)) + end.end()
        prefix = str(ident_end - m.start())  # the identifier's length, written just before it
        if text[m.start() - len(prefix):m.start()] != prefix:
            continue
        out.append(text[i:m.start() - len(prefix)])
        out.append('12_GLOBAL__N_1')
        i = ident_end
    out.append(text[i:])
    return ''.join(out)

def demangle(names):
    if not names:
        return []
    r = subprocess.run(['c++filt'], input='\n'.join(names) + '\n', capture_output=True, text=True, check=True)
    return r.stdout.split('\n')[:len(names)]

INSN = re.compile(r'^\s*/\*[0-9a-f]{4,}\*/\s*(.*?)\s*;?\s*/\*\s*0x[0-9a-f]+\s*\*/\s*$')

def functions(path):
    """{demangled name: [instruction text]} of every function in a cuobjdump -sass listing."""
    funcs, order, cur = {}, [], None
    with open(path) as f:
        for line in f:
            if line.lstrip().startswith('Function :'):
                cur = strip_anon(line.split(':', 1)[1].strip())
                order.append(cur)
                funcs.setdefault(cur, []).append([])
                continue
            if cur is None:
                continue
            m = INSN.match(line)
            if m:
                funcs[cur][-1].append(strip_anon(m.group(1)))
    names = list(dict.fromkeys(order))
    pretty = demangle(names)
    out = {}
    for mangled, name in zip(names, pretty):
        for k, body in enumerate(funcs[mangled]):
            key = name if k == 0 else f'{name} #{k + 1}'  # one name in several translation units
            out[key] = body
    return out

base, new = functions(sys.argv[1]), functions(sys.argv[2])
show_diff = os.environ.get('LOWP_SASS_DIFF') == '1'
counts = {'same': 0, 'different': 0, 'missing': 0, 'new': 0}
for name in sorted(set(base) | set(new)):
    if name not in new:
        status = 'missing'
    elif name not in base:
        status = 'new'
    else:
        status = 'same' if base[name] == new[name] else 'different'
    counts[status] += 1
    detail = ''
    if status == 'different':
        changed = sum(1 for d in difflib.ndiff(base[name], new[name]) if d[:1] in '+-')
        detail = f'  ({len(base[name])} -> {len(new[name])} instructions, {changed} lines differ)'
    print(f'{status:9} {name}{detail}')
    if status == 'different' and show_diff:
        sys.stdout.writelines(l + '\n' for l in difflib.unified_diff(base[name], new[name], 'base', 'new', lineterm='', n=2))
print(f"\n{counts['same']} same, {counts['different']} different, {counts['missing']} missing, {counts['new']} new "
      f"({len(base)} functions in base, {len(new)} in new)")
sys.exit(0 if counts['different'] == counts['missing'] == counts['new'] == 0 else 1)
EOF
