#!/usr/bin/env python3
"""Lists the functions longer than a limit in C++ sources.

usage: function_length_check.py LIMIT [--allow FILE:NAME]... DIR_OR_FILE...

A function is counted from the first line of its signature to its closing
brace. The scan matches braces outside comments, string and character
literals; a brace that opens a body after a parenthesised parameter list
(optionally followed by qualifiers, an initialiser list or a trailing return
type) starts a function, unless it belongs to a control statement or a
lambda, whose lines count towards the function around it. Namespaces,
classes, structs, enums and other braces are descended into, so member
functions defined in a class are checked too. Exit status 1 when any
function is over the limit (each printed as FILE:LINE: NAME: N lines);
--allow FILE:NAME (FILE a path suffix) names a function known to be over it,
which is printed but does not fail the check, and fails it once it is no
longer over (so the list only shrinks).
"""
import os
import re
import sys

EXTENSIONS = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh")
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept",
           "static_assert", "constexpr"}


def strip(text):
    """The text with comments, string and character literals blanked
    (newlines kept, so line numbers hold)."""
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
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or text[:i].rstrip(" \t").endswith("\n")):
            # A preprocessor line (with its continuations) is no code to scan.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_paren_start(code, close):
    """Index of the '(' that matches the ')' at `close`."""
    depth = 0
    for i in range(close, -1, -1):
        if code[i] == ")":
            depth += 1
        elif code[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    return -1


def classify(code, brace, statement_start):
    """('function', name, start index) when the '{' at `brace` opens a
    function body, else (kind, None, None)."""
    head = code[statement_start:brace]
    stripped = head.strip()
    if not stripped:
        return ("block", None, None)
    if re.match(r"^(namespace|extern)\b", stripped):
        return ("scope", None, None)
    if re.match(r"^(template\s*<.*>\s*)?(class|struct|union|enum)\b", stripped, re.S) and "(" not in stripped:
        return ("scope", None, None)
    # The parameter list: the last ')' at parenthesis depth 0 before the
    # brace, past qualifiers, an initialiser list or a trailing return type.
    close = -1
    depth = 0
    for i in range(brace - 1, statement_start - 1, -1):
        ch = code[i]
        if ch == ")":
            if depth == 0 and close < 0:
                close = i
            depth += 1
        elif ch == "(":
            depth -= 1
    if close < 0:
        return ("block", None, None)
    # Find the outermost call-like group: for constructors with an
    # initialiser list (A::A(int x) : b_(x) {), the signature's list is the
    # first at depth 0 after the name.
    groups = []
    i = statement_start
    depth = 0
    start = None
    while i < brace:
        ch = code[i]
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start is not None:
                groups.append((start, i))
        i += 1
    if not groups:
        return ("block", None, None)
    open_ = groups[0][0]
    before = code[statement_start:open_].rstrip()
    m = re.search(r"(operator\s*[^\s\w]+|operator\s+\w[\w:<>\s]*|~?[A-Za-z_][\w:]*)\s*(<[^()]*>)?$", before)
    if not m:
        # A lambda ([&](...) {) or an expression.
        return ("block", None, None)
    name = m.group(1)
    last = name.split("::")[-1]
    if last in CONTROL or re.search(r"\]\s*$", before):
        return ("block", None, None)
    # An initialiser or an expression ending in a call: `= f(x) {` is no
    # function; `x = [&](...)` is a lambda.
    if re.search(r"[=,(\[]\s*$", code[statement_start:m.start()].rstrip() + " ") and "=" in code[statement_start:m.start()]:
        return ("block", None, None)
    return ("function", name, statement_start)


def functions(text):
    """(name, first line, last line) of each function definition."""
    code = strip(text)
    found = []
    stack = []  # (kind, name, start index) per open brace
    statement_start = 0
    for i, ch in enumerate(code):
        if ch in ";}":
            if ch == "}" and stack:
                kind, name, start = stack.pop()
                if kind == "function":
                    found.append((name, code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1))
            statement_start = i + 1
        elif ch == "{":
            inside_function = any(k == "function" for k, _, _ in stack)
            if inside_function:
                stack.append(("block", None, None))
            else:
                # The statement starts after the last ';', '{' or '}' (and
                # after an access specifier such as `public:`).
                head = code[statement_start:i]
                m = None
                for m in re.finditer(r"\b(public|private|protected)\s*:(?!:)", head):
                    pass
                start = statement_start + (m.end() if m else 0)
                while start < i and code[start].isspace():
                    start += 1
                stack.append(classify(code, i, start))
            statement_start = i + 1
    return found


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in sorted(os.walk(p)):
                for n in sorted(names):
                    if n.endswith(EXTENSIONS):
                        yield os.path.join(root, n)
        else:
            yield p


def main(argv):
    args = argv[1:]
    allowed = {}
    paths = []
    while args:
        a = args.pop(0)
        if a == "--allow" and args:
            allowed[tuple(args.pop(0).rsplit(":", 1))] = False
        else:
            paths.append(a)
    if len(paths) < 2 or not paths[0].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 2
    limit = int(paths[0])
    over = 0
    for path in files(paths[1:]):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name, first, last in functions(text):
            n = last - first + 1
            if n <= limit:
                continue
            known = [k for k in allowed if path.endswith(k[0]) and name == k[1]]
            for k in known:
                allowed[k] = True
            print(f"{path}:{first}: {name}: {n} lines (limit {limit}){' (allowed)' if known else ''}")
            over += not known
    for (file, name), seen in allowed.items():
        if not seen:
            print(f"--allow {file}:{name}: not over {limit} lines (or not found): drop it from the list")
            over += 1
    if over:
        print(f"{over} function(s) over {limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
