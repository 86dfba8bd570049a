#!/usr/bin/env python3
"""Checks the documentation (README.md and docs/**/*.md); stdlib only, no build needed.

Fails (exit 1, one line per problem) when
  - a relative markdown link, [text](path), points at a path that does not exist, or at a
    heading (path#anchor, #anchor) that the markdown file does not have;
  - a backticked repository path (`docs/x.md`, `scripts/y.sh`, `src/numerics/`: the first
    component is a top-level folder of the repository) names a file or folder that does not exist;
  - prose cites an issue number of our tracker ("issue <number>", "#<number>"); an external pull
    request ("TE PR #<number>") is allowed, and so is "issue" followed by a measurement ("issue 76%",
    ncu's issue slots);
  - README.md has more than README_MAX_LINES lines.
It also fails on an "issue <number>" citation in the code comments of bench/, scripts/, tests/
and cli/ (there "#<number>" is not checked: it is too common in code).

Backticked paths are read from the repository root first, then from the document's folder. A
glob (`tests/cpu/backend/nvfp4_*`, `tests/{cpu,cuda}`) must match something; a missing path with
a placeholder component in capitals (`scripts/ab/NAME.patch`) is not reported; a generated file
is found by its template (`include/lowp/version.h` from `include/lowp/version.h.in`).

usage: python3 scripts/check-docs.py
"""
import glob
import os
import re
import sys

# Documents a link may name before they are written (none today).
ALLOWED_MISSING = set()

# Paths that a how-to names as examples of files a reader would create, per document.
EXAMPLE_PATHS = {
    "docs/adding-a-recipe.md": re.compile(r"mxfp8"),  # walks through adding a hypothetical MXFP8 recipe
}

README_MAX_LINES = 200

# Folders whose code comments must not cite issue numbers either.
CODE_DIRS = ("bench", "scripts", "tests", "cli")
CODE_EXTS = (".c", ".cc", ".cpp", ".h", ".hpp", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
ISSUE_WORD = re.compile(r"\bissues?[\s-]*(?:no\.?\s*|number\s*)?#?\d+\b(?!\.\d|(?:\s*[-–]\s*[\d.]+)?\s*%)", re.IGNORECASE)
HASH_NUMBER = re.compile(r"(?<![\w&/])#\d+\b")
EXTERNAL_PR = re.compile(r"\b(?:PR|pull request)\s*$", re.IGNORECASE)
URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9]+)?$")
PATH_TOKEN = re.compile(r"^[A-Za-z0-9_.\-/*{},]+$")
BRACES = re.compile(r"\{([^{}]*)\}")


def rel(path):
    return os.path.relpath(path, ROOT)


def top_level_dirs():
    return {e for e in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, e)) and e != ".git"}


def documents():
    docs = [os.path.join(ROOT, "README.md")]
    docs += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return [d for d in docs if os.path.isfile(d)]


def exists_or_allowed(target_abs):
    if os.path.exists(target_abs):
        return True
    return rel(target_abs) in ALLOWED_MISSING


def anchors(md_path):
    """The anchors GitHub gives a markdown file's headings (lower case, punctuation dropped,
    spaces to hyphens, -1, -2, ... on repeats), and its <a id="..."> anchors."""
    seen, out, fence = {}, set(), False
    with open(md_path, encoding="utf-8") as f:
        for line in f:
            if re.match(r"^\s*(```|~~~)", line):
                fence = not fence
            if not fence:
                out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))  # <a id="s0"></a>
            m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_link(doc, target):
    """A markdown link's target; None when fine, else the problem."""
    if URL.match(target) or target.startswith("mailto:"):
        return None
    path, _, fragment = target.partition("#")
    path = path.split("?", 1)[0]
    if path:
        base = ROOT if path.startswith("/") else os.path.dirname(doc)
        full = os.path.normpath(os.path.join(base, path.lstrip("/")))
        if os.path.commonpath([full, ROOT]) != ROOT:
            return f"link leaves the repository: {target}"
        if not os.path.exists(full):
            return None if rel(full) in ALLOWED_MISSING else f"link to a missing path: {target}"
    else:
        full = doc
    if fragment and full.endswith(".md") and os.path.isfile(full) and fragment not in anchors(full):
        return f"link to a missing heading: {target}"
    return None


def expand_braces(pattern):
    """tests/{cpu,cuda} -> [tests/cpu, tests/cuda] (nested braces are not used)."""
    m = BRACES.search(pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",") for x in expand_braces(pattern[: m.start()] + alt + pattern[m.end():])]


def path_found(base, path):
    full = os.path.normpath(os.path.join(base, path))
    if any(c in path for c in "*?{"):
        return any(glob.glob(p) for p in expand_braces(full))
    return exists_or_allowed(full) or os.path.isfile(full + ".in")


def check_path_token(doc, token, tops):
    """A backticked word that may be a repository path; None when fine or not a path."""
    token = re.sub(r":\d+(?::\d+)?$", "", token.rstrip(".,;:)"))  # file.cpp:123, trailing punctuation
    if "/" not in token or not PATH_TOKEN.match(token) or "//" in token:
        return None
    if token.split("/", 1)[0] not in tops:
        return None
    if any(path_found(base, token) for base in (ROOT, os.path.dirname(doc))):
        return None
    if any(PLACEHOLDER.match(part) for part in token.split("/")):  # NAME, OUTDIR (README.md exists)
        return None
    example = EXAMPLE_PATHS.get(rel(doc))
    if example and example.search(token):
        return None
    return f"path does not exist: {token}"


def check_issue_citations(text):
    """Issue-number citations in a line of prose (code spans and URLs already removed)."""
    found = [m.group(0) for m in ISSUE_WORD.finditer(text)]
    for m in HASH_NUMBER.finditer(text):
        if not EXTERNAL_PR.search(text[: m.start()]):
            found.append(m.group(0))
    return found


def check_document(doc, tops):
    problems = []
    in_fence = None
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        fence = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            mark = fence.group(1)[0] * 3
            if in_fence is None:
                in_fence = mark
            elif mark == in_fence:
                in_fence = None
            continue
        if in_fence is not None:
            # Code: commands name scripts; check the words that look like repository paths.
            for word in line.split():
                p = check_path_token(doc, word.strip("\"'"), tops)
                if p:
                    problems.append((n, p))
            continue
        spans = [m.group(2).strip() for m in CODE_SPAN.finditer(line)]
        prose = CODE_SPAN.sub(" ", line)
        for m in LINK.finditer(prose):
            p = check_link(doc, m.group(1))
            if p:
                problems.append((n, p))
        ref = REF_LINK.match(prose)
        if ref:
            p = check_link(doc, ref.group(1))
            if p:
                problems.append((n, p))
        for span in spans:
            for word in span.split():
                p = check_path_token(doc, word, tops)
                if p:
                    problems.append((n, p))
        for cite in check_issue_citations(URL.sub(" ", LINK.sub(" ", prose))):
            problems.append((n, f"cites an issue number ({cite!r}): say what it was instead"))
    return problems, len(lines) - (1 if lines and lines[-1] == "" else 0)


def check_code_comments():
    problems = []
    for d in CODE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for name in sorted(files):
                if not name.endswith(CODE_EXTS) and name != "CMakeLists.txt" and "." in name:
                    continue
                path = os.path.join(dirpath, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        lines = f.read().split("\n")
                except (UnicodeDecodeError, OSError):
                    continue
                for n, line in enumerate(lines, 1):
                    for m in ISSUE_WORD.finditer(line):
                        problems.append((rel(path), n, f"cites an issue number ({m.group(0)!r}): say what it was instead"))
    return problems


def main():
    tops = top_level_dirs()
    failures = []
    docs = documents()
    for doc in docs:
        problems, count = check_document(doc, tops)
        failures += [(rel(doc), n, p) for n, p in problems]
        if rel(doc) == "README.md" and count > README_MAX_LINES:
            failures.append(("README.md", count, f"README.md has {count} lines, more than {README_MAX_LINES}"))
    failures += check_code_comments()
    for path, n, p in failures:
        print(f"{path}:{n}: {p}")
    if failures:
        print(f"check-docs: {len(failures)} problem(s) in README.md, docs/ and the comments of {', '.join(CODE_DIRS)}/")
        return 1
    print(f"check-docs: ok ({len(docs)} documents; links, repository paths, issue citations; "
          f"README.md within {README_MAX_LINES} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
