#!/usr/bin/env python3
"""check_disasm.py: decoder conformance of the LANai ISS against llvm-objdump 14.

Words: the generated corpus (gen_corpus.py, every encoding class) and every word of the
firmware image's text. Each word is assembled into its own section (llvm-mc .long), so that
objdump starts afresh at every word: after <unknown> it advances by one byte and would
otherwise decode windows that straddle two words. For each word
the ISS disassembler (iss-dis) must print what objdump prints, whitespace normalized and the
" <symbol>" annotation of branch targets dropped; a word objdump calls <unknown> must be
<unknown> for the ISS and undefined for its decoder; every word the decoder executes must be
one objdump decodes (BRR, bCC.r, is decoded by objdump but not executed: its semantics are
undocumented).

llvm-objdump 14 itself crashes (llvm_unreachable "Invalid ALU code") on RRM words with
BBB = 111 and JJJJJ bit 2 set: no text to compare. Those are kept out of the bulk runs,
a sample is confirmed to still crash one by one, and the ISS must call all of them undefined.

usage: check_disasm.py ISS_DIS IMAGE.img IMAGE.map"""
import os
import re
import subprocess
import sys
import tempfile

iss_dis, image, mapfile = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))


def corpus():
    out = subprocess.run([sys.executable, os.path.join(here, "gen_corpus.py")],
                         check=True, capture_output=True, text=True).stdout
    return [int(x, 16) for x in out.split()]


def image_text():
    text_end = None
    for line in open(mapfile):
        f = line.split()
        if len(f) >= 4 and f[0] == "output" and f[1] == "text":
            text_end = int(f[3], 16)
    data = open(image, "rb").read()[:text_end]
    return [int.from_bytes(data[i:i + 4], "big") for i in range(0, len(data) - 3, 4)]


def objdump_crashes(w):
    return w >> 28 in (0xA, 0xB) and (w >> 8) & 7 == 7 and (w >> 5) & 1


def norm(text):
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r" <[^<>]*>$", "", text) if text != "<unknown>" else text


def objdump(words, tmp):
    """objdump's text for each word, or None where objdump crashed."""
    src = os.path.join(tmp, "c.s")
    obj = os.path.join(tmp, "c.o")
    with open(src, "w") as f:
        for i, w in enumerate(words):
            f.write('.section .text.w%d,"ax",@progbits\nw%d:\n.long 0x%08x\n' % (i, i, w))
    subprocess.run(["llvm-mc", "--triple=lanai", "-filetype=obj", src, "-o", obj], check=True)
    r = subprocess.run(["llvm-objdump", "-d", obj], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    texts, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <w(\d+)>:$", line)
        if m:
            cur = int(m.group(1))
            continue
        if cur is not None and cur not in texts and "\t" in line:
            texts[cur] = norm(line.split("\t", 1)[1])
    return [texts.get(i) for i in range(len(words))]


def main():
    words = corpus() + image_text()
    bulk = [w for w in words if not objdump_crashes(w)]
    crashers = [w for w in words if objdump_crashes(w)]
    with tempfile.TemporaryDirectory() as tmp:
        want = objdump(bulk, tmp)
        if want is None:
            print("FAIL: llvm-objdump crashed on the bulk corpus")
            return 1
        still = sum(objdump([w], tmp) is None for w in crashers[:: max(1, len(crashers) // 8)])
    feed = "".join("%08x\n" % w for w in bulk + crashers)
    got = subprocess.run([iss_dis, "-d"], input=feed, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    fails = 0
    for i, w in enumerate(bulk + crashers):
        ok, rest = got[i].split(" ", 1)
        kind, text = rest.split("\t", 1)
        text = norm(text)
        exp = want[i] if i < len(bulk) else "<unknown>"
        brr = w >> 28 == 0xE and w & 2 and (w >> 24) & 1
        bad = []
        if text != exp:
            bad.append("disasm %r, objdump %r" % (text, exp))
        if exp == "<unknown>" and kind != "undef":
            bad.append("objdump: <unknown>, ISS executes it")
        if exp != "<unknown>" and kind == "undef" and not brr:
            bad.append("objdump decodes it, ISS calls it undefined")
        if bad:
            fails += 1
            if fails <= int(os.environ.get("SHOW", "40")):
                print("FAIL %08x: %s" % (w, "; ".join(bad)))
    unknown = sum(1 for t in want if t == "<unknown>")
    print("%d words (%d from the image), %d <unknown>, %d objdump-crash words (%d of a sample "
          "confirmed); %d mismatches" % (len(words), len(image_text()), unknown, len(crashers),
                                         still, fails))
    return 1 if fails else 0


sys.exit(main())
