#!/usr/bin/env python3
"""Prints each function in the given C++ files whose body is longer than a limit.

usage: function_lengths.py LIMIT FILE...   (exit 1 when any is over)

A function is a brace block whose header has a parameter list and that is not inside another
function (a lambda counts toward the function around it). Its length runs from the first line of
its header to its closing brace. Strings, characters and comments are skipped, so a brace in them
does not count; the code is clang-formatted, which this relies on for no more than that.
"""
import re
import sys

TYPE_HEADER = re.compile(r"^\s*(template\s*<.*>\s*)?(namespace|class|struct|enum|union|extern)\b")


def code_only(text):
    """The text with comments and string/char literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def long_functions(path, limit):
    with open(path, encoding="utf-8") as f:
        code = code_only(f.read())
    found = []
    stack = []  # per open brace: (is_function, start line, header)
    header_start = None
    header = ""
    line = 1
    for c in code:
        if c == "\n":
            line += 1
        if c == "{":
            inside_function = any(entry[0] for entry in stack)
            is_function = (not inside_function and ")" in header and
                           not TYPE_HEADER.match(header) and "=" not in header.split("(")[0])
            stack.append((is_function, header_start or line, header.strip()))
            header, header_start = "", None
        elif c == "}":
            if stack:
                is_function, start, text = stack.pop()
                if is_function and line - start + 1 > limit:
                    name = " ".join(text.split())[:100]
                    found.append(f"{path}:{start}: {line - start + 1} lines: {name}")
            header, header_start = "", None
        elif c == ";":
            header, header_start = "", None
        elif not c.isspace() or header:
            if header_start is None and not c.isspace():
                header_start = line
            header += c
            # Preprocessor lines and access labels are not part of a header.
            if c == "\n" and header.lstrip().startswith("#"):
                header, header_start = "", None
    return found


def main():
    limit = int(sys.argv[1])
    found = [hit for path in sys.argv[2:] for hit in long_functions(path, limit)]
    for hit in found:
        print(hit)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
