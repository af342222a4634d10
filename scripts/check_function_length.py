#!/usr/bin/env python3
"""No function longer than a limit (doc/design.md, "Habits": 120 lines).

Finds the function bodies of C++ files by their braces, with comments,
strings and character literals blanked first: a `{` at namespace or class
level whose declaration has a parameter list opens a function, and its
lambdas and local classes count as part of it. A function's length runs from
the first line of its declaration to its closing brace. Prints one line per
function over the limit, file:line first, and exits 1 if there is any.

usage: check_function_length.py [--max N] [--list] PATH...   (files or folders)
"""
import argparse
import os
import re
import sys

CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b")
NAME = re.compile(r"(~?[A-Za-z_][\w:<>,~ ]*?)\s*\($")


def blank_non_code(text):
    """Comments, string and character literals replaced by spaces, lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """(name, first line, last line) of every function defined in `text`."""
    code = blank_non_code(text)
    code = re.sub(r"^[ \t]*#.*$", lambda m: " " * len(m.group(0)), code, flags=re.M)  # preprocessor lines
    found = []
    stack = []  # per open brace: "container", "function" or "other"
    statement_start = 0  # offset where the text since the last ; { } at this level begins
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, c in enumerate(code):
        line_of[i] = line
        if c == "\n":
            line += 1
    in_function = 0
    fn_open = []  # (name, first line) of the open functions, outermost first
    for i, c in enumerate(code):
        if c == "{":
            kind = "other"
            if in_function == 0:
                decl = code[statement_start:i]
                head = decl.split("(")[0]
                if CONTAINER.search(head) or re.search(r"\bextern\s*$", decl.strip() + " ") is not None:
                    kind = "container"
                elif "(" in decl and ")" in decl and not re.search(r"=\s*$", decl.rstrip()):
                    init_list = re.search(r"\)\s*(const\s*)?(noexcept\s*)?:[^:]", decl)
                    if init_list and i > 0 and (code[i - 1].isalnum() or code[i - 1] == "_"):
                        kind = "other"  # a member initialised with braces: member_{...}
                    else:
                        kind = "function"
                        first = decl[: len(decl) - len(decl.lstrip())]
                        start = statement_start + len(first)
                        m = NAME.search(decl[: decl.index("(") + 1].strip())
                        name = m.group(1).strip() if m else decl.strip().split("\n")[0][:60]
                        fn_open.append((name, line_of[start]))
                        in_function += 1
                elif decl.strip().endswith(("=", ",")) or decl.strip() == "":
                    kind = "other"
            else:
                in_function += 1
            stack.append(kind)
            if kind != "other" or in_function == 0:
                statement_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "other"
            if in_function > 0:
                in_function -= 1
                if in_function == 0 and fn_open:
                    name, first = fn_open.pop()
                    found.append((name, first, line_of[i]))
            if in_function == 0 and (not stack or stack[-1] == "container"):
                statement_start = i + 1
        elif c == ";" and in_function == 0:
            if not stack or stack[-1] == "container":
                statement_start = i + 1
    return found


def source_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for dirpath, _, names in os.walk(p):
            for name in sorted(names):
                if name.endswith((".cpp", ".h", ".c")):
                    yield os.path.join(dirpath, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=120)
    ap.add_argument("--list", action="store_true", help="print every function over --max, and the longest")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    over = []
    longest = (0, "")
    count = 0
    for path in source_files(args.paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name, first, last in functions(text):
            count += 1
            length = last - first + 1
            if length > longest[0]:
                longest = (length, f"{path}:{first}: {name}")
            if length > args.max:
                over.append(f"{path}:{first}: {name} is {length} lines (at most {args.max})")
    for o in over:
        print(o)
    print(f"function length: {count} functions, the longest {longest[0]} lines ({longest[1]})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
