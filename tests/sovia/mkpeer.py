#!/usr/bin/env python3
"""mkpeer.py: writes endpoint B of a SOVIA model from endpoint A by swapping A and B in every
name (ConnA/ConnB, AppA/AppB, WireAB/WireBA, a_*/b_*, vi_connect side 0/1).

    mkpeer.py conn_a.esm > conn_b.esm        (or: mkpeer.py --check conn_a.esm conn_b.esm)
"""
import re
import sys

SWAP = {"A": "B", "B": "A", "a": "b", "b": "a", "AB": "BA", "BA": "AB", "0": "1", "1": "0"}


def peer(text):
    # Names ending in A/B (ConnA, AppA, WinA, ...), the wires, a_/b_ prefixes, the side number.
    text = re.sub(r"\b(Wire|Link)(AB|BA)\b", lambda m: m.group(1) + SWAP[m.group(2)], text)
    text = re.sub(r"\b([A-Z][a-z]+)([AB])\b", lambda m: m.group(1) + SWAP[m.group(2)], text)
    text = re.sub(r"\b([ab])_", lambda m: SWAP[m.group(1)] + "_", text)
    text = re.sub(r"\bvi_connect\(([01])\)", lambda m: "vi_connect(%s)" % SWAP[m.group(1)], text)
    text = re.sub(r"\bendpoint ([AB])\b", lambda m: "endpoint " + SWAP[m.group(1)], text)
    text = re.sub(r"\b([A-Z])'s\b", lambda m: SWAP.get(m.group(1), m.group(1)) + "'s", text)
    text = re.sub(r"^# conn_([ab])\.esm:", lambda m: "# conn_%s.esm:" % SWAP[m.group(1)], text)
    text = re.sub(r"^# win_([ab])\.esm:", lambda m: "# win_%s.esm:" % SWAP[m.group(1)], text)
    return text


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        a, b = open(sys.argv[2]).read(), open(sys.argv[3]).read()
        if peer(a) != b:
            sys.exit("mkpeer: %s is not %s with A and B swapped" % (sys.argv[3], sys.argv[2]))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(peer(open(sys.argv[1]).read()))


if __name__ == "__main__":
    main()
