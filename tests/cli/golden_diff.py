#!/usr/bin/env python3
"""Prints what changed between two versions of a golden file, so the commit that regenerates it
can explain each value: JSON documents field by field ("/plans/0/tpot_ms: 7.016 -> 7.284", RFC
6901 pointers), any other text as a unified diff.

usage: golden_diff.py OLD NEW [LABEL]
"""
import difflib
import json
import sys


def pointer_token(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def show(value):
    return json.dumps(value, ensure_ascii=False)


def walk(old, new, pointer, out):
    """Appends 'pointer: old -> new' for every leaf that differs (added/removed keys included)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            child = pointer + "/" + pointer_token(key)
            if key not in new:
                out.append(f"{child}: {show(old[key])} -> (removed)")
            elif key not in old:
                out.append(f"{child}: (added) -> {show(new[key])}")
            else:
                walk(old[key], new[key], child, out)
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            child = f"{pointer}/{i}"
            if i >= len(new):
                out.append(f"{child}: {show(old[i])} -> (removed)")
            elif i >= len(old):
                out.append(f"{child}: (added) -> {show(new[i])}")
            else:
                walk(old[i], new[i], child, out)
    elif old != new or type(old) is not type(new):
        out.append(f"{pointer or '/'}: {show(old)} -> {show(new)}")


def documents(text):
    """The JSON values in `text` (goldens may hold several, one after another), or None."""
    decoder, pos, docs = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return docs or None
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return None
        docs.append(value)


def diff(old_text, new_text):
    old_docs, new_docs = documents(old_text), documents(new_text)
    if old_docs is None or new_docs is None:
        return [line.rstrip("\n") for line in difflib.unified_diff(
            old_text.splitlines(True), new_text.splitlines(True), "old", "new", n=1)]
    out = []
    if len(old_docs) == 1 and len(new_docs) == 1:
        walk(old_docs[0], new_docs[0], "", out)
    else:  # several documents: pointers start at the document's index
        walk(old_docs, new_docs, "", out)
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        old_text = f.read()
    with open(argv[2], encoding="utf-8") as f:
        new_text = f.read()
    label = argv[3] if len(argv) > 3 else argv[1]
    lines = diff(old_text, new_text)
    if lines:
        print(f"golden {label} changed:")
        for line in lines:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
