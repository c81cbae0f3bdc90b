#!/usr/bin/env python3
"""Checks a LANai image built by `make firmware-lanai` with tools other than lanai-ld:
the flat image against its ELF twin, the disassembly (llvm-objdump) against the map, and
every relocation of the merged object recomputed here and compared with the patched word.
Usage: check_image.py BUILD_DIR LANAI_LD    (prints "N passed, N failed")"""
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elfread import Elf, read_map  # noqa: E402

R_NAMES = {1: "R_LANAI_21", 2: "R_LANAI_21_F", 3: "R_LANAI_25", 4: "R_LANAI_32",
           5: "R_LANAI_HI16", 6: "R_LANAI_LO16"}
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok    " + name)
    else:
        failed += 1
        print("FAIL  " + name + (": " + detail if detail else ""))


def word(image, addr):
    return struct.unpack_from(">I", image, addr)[0]


def field(rtype, w):
    """The value a relocated word encodes, decoded the way the CPU reads it."""
    if rtype in (1, 2):
        return ((w >> 18) & 0x1F) << 16 | (w & 0xFFFF)
    if rtype == 3:
        return w & 0x01FFFFFC
    if rtype == 4:
        return w
    return w & 0xFFFF


def expected(rtype, v):
    if rtype == 5:
        return v >> 16
    if rtype == 6:
        return v & 0xFFFF
    return v & 0xFFFFFFFF


def check_relocations(obj, image, mapping, label):
    """Recomputes S + A for every relocation and compares with the image. Returns counts."""
    secaddr = {(s["name"]): s["addr"] for s in mapping["section"]}
    symaddr = {s["name"]: s["addr"] for s in mapping["symbol"]}
    counts, bad = {}, []
    for target, off, sym, rtype, addend in obj.relocations():
        if not target["flags"] & 2 or rtype == 0:
            continue
        if sym["shndx"] == 0:
            s = symaddr[sym["name"]]
        elif sym["shndx"] == 0xFFF1:
            s = sym["value"]
        else:
            s = secaddr[obj.sections[sym["shndx"]]["name"]] + sym["value"]
        v = (s + addend) & 0xFFFFFFFF
        addr = secaddr[target["name"]] + off
        got = field(rtype, word(image, addr))
        if got != expected(rtype, v):
            bad.append("%s at 0x%x: field 0x%x, want 0x%x" % (R_NAMES.get(rtype), addr, got,
                                                              expected(rtype, v)))
        counts[rtype] = counts.get(rtype, 0) + 1
    total = sum(counts.values())
    check("%s: %d relocations recomputed and matched (%s)" % (
        label, total, ", ".join("%s x%d" % (R_NAMES[t], n) for t, n in sorted(counts.items()))),
        not bad and total > 0, "; ".join(bad[:5]))
    return counts


def disassemble(elf_path):
    out = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", elf_path],
                         check=True, capture_output=True, text=True).stdout
    insns, func = [], None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]{8}) <([^>]+)>:", line)
        if m:
            func = m.group(2)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3).strip(), func))
    return insns


def check_disassembly(elf_path, mapping):
    funcs = {s["addr"]: s for s in mapping["symbol"] if s["kind"] in "Tt"}
    text_end = mapping["output"]["text"][1]
    insns = disassemble(elf_path)
    check("llvm-objdump: the instruction at address 0 is in <_start>",
          insns and insns[0][0] == 0 and insns[0][3] == "_start",
          repr(insns[:1]))

    def owner(addr):
        best = None
        for a, s in funcs.items():
            if a <= addr < a + max(s["size"], 4) and (best is None or a > best["addr"]):
                best = s
        return best

    calls = branches = 0
    bad = []
    for i, (addr, mnem, ops, _) in enumerate(insns):
        m = re.match(r"^0x([0-9a-f]+)", ops)
        if not mnem.startswith("b") or not m:
            continue
        target = int(m.group(1), 16)
        if target >= text_end:
            bad.append("0x%x: %s %s leaves .text" % (addr, mnem, ops))
            continue
        prev = insns[i - 1][1:3] if i else ("", "")
        if prev == ("st", "%rca, [--%sp]"):
            calls += 1
            if target not in funcs:
                bad.append("0x%x: call to 0x%x, not a function start" % (addr, target))
        else:
            branches += 1
            here, there = owner(addr), owner(target)
            if here is None or there is None or here["name"] != there["name"]:
                bad.append("0x%x: branch to 0x%x leaves its function" % (addr, target))
    check("llvm-objdump: %d calls land on function symbols, %d branches stay inside their "
          "function" % (calls, branches), not bad and calls > 0 and branches > 0,
          "; ".join(bad[:5]))


def check_runtime_objects(build):
    """No runtime routine may call itself (a libcall clang would emit inside it)."""
    rt_dir = os.path.join(build, "obj/firmware/lanai/rt")
    bad, n = [], 0
    for name in sorted(os.listdir(rt_dir)):
        if not name.endswith(".o"):
            continue
        obj = Elf(os.path.join(rt_dir, name))
        text = [s for s in obj.sections if s["name"] == ".text"][0]
        funcs = [s for s in obj.symbols if s["type"] == 2 and s["shndx"] == text["index"]]
        for target, off, sym, rtype, _ in obj.relocations():
            if target is not text or rtype != 3 or sym["bind"] == 0:
                continue
            n += 1
            caller = [f for f in funcs if f["value"] <= off < f["value"] + f["size"]]
            if caller and caller[0]["name"] == sym["name"]:
                bad.append("%s: %s calls itself" % (name, sym["name"]))
        undefined = {s["name"] for s in obj.symbols if s["shndx"] == 0 and s["name"]}
        if undefined - {"__udivsi3", "__umodsi3"}:
            bad.append("%s needs %s" % (name, sorted(undefined)))
    check("runtime objects: no self-recursion, only runtime libcalls (%d calls)" % n, not bad,
          "; ".join(bad))


def check_21_f(build, lanai_ld):
    """clang never emits R_LANAI_21_F: retype the R_LANAI_21 entries of the merged object
    and check the linker patches them the same (the targets are word-aligned)."""
    path = os.path.join(build, "firmware.o")
    obj = Elf(path)
    data = bytearray(obj.data)
    n = 0
    for s in obj.sections:
        if s["type"] != 4:
            continue
        for k in range(s["size"] // 12):
            at = s["offset"] + 12 * k + 7  # low byte of r_info = type
            if data[at] == 1:
                data[at] = 2
                n += 1
    with tempfile.TemporaryDirectory() as tmp:
        o, img = os.path.join(tmp, "f.o"), os.path.join(tmp, "f.img")
        with open(o, "wb") as f:
            f.write(data)
        r = subprocess.run([lanai_ld, "-q", "-o", img, o], capture_output=True, text=True)
        ok = r.returncode == 0
        if ok:
            with open(img, "rb") as f:
                image = f.read()
            counts = check_relocations(Elf(o), image, read_map(img + ".map"),
                                       "R_LANAI_21_F (retyped object)")
            ok = counts.get(2, 0) == n
    check("R_LANAI_21_F: %d retyped relocations link and patch" % n, ok and n > 0, r.stderr)


def check_trampoline(build, lanai_ld):
    """With an entry that does not start its section, address 0 must hold `bt entry; nop`."""
    with tempfile.TemporaryDirectory() as tmp:
        img, elf = os.path.join(tmp, "t.img"), os.path.join(tmp, "t.elf")
        r = subprocess.run([lanai_ld, "-q", "--entry", "main", "-o", img, "--elf", elf,
                            os.path.join(build, "firmware.o")], capture_output=True, text=True)
        if r.returncode != 0:
            check("trampoline: link with --entry main", False, r.stderr)
            return
        mapping = read_map(img + ".map")
        main = [s["addr"] for s in mapping["symbol"] if s["name"] == "main"][0]
        insns = disassemble(elf)
        ok = (len(insns) >= 2 and insns[0][0] == 0 and insns[0][1] == "bt" and
              insns[0][2].startswith("0x%x <main>" % main) and insns[1][1] == "nop" and
              mapping["entry"][0] == main != 0)
        check("trampoline: --entry main puts `bt 0x%x <main>; nop` at 0" % main, ok,
              repr(insns[:2]))


def main():
    build, lanai_ld = sys.argv[1], sys.argv[2]
    image_path = os.path.join(build, "firmware.img")
    with open(image_path, "rb") as f:
        image = f.read()
    mapping = read_map(os.path.join(build, "firmware.map"))
    elf = Elf(os.path.join(build, "firmware.elf"))

    check("map: entry _start at 0x00000000", mapping.get("entry") == (0, "_start"))
    start = [s for s in mapping["symbol"] if s["name"] == "_start"]
    check("map: symbol _start at address 0", start and start[0]["addr"] == 0)
    check("image size equals the end of .data in the map",
          len(image) == mapping["output"]["data"][1], "%d bytes" % len(image))
    load = elf.segments[0]
    check("ELF twin: one PT_LOAD at 0 holding exactly the flat image, entry 0",
          elf.type == 2 and elf.machine == 244 and elf.entry == 0 and load[2] == 0 and
          elf.data[load[1]:load[1] + load[4]] == image and
          load[5] == mapping["output"]["bss"][1])
    classes = mapping["output"]
    bad = [s["name"] for s in mapping["symbol"] if s["kind"] in "Tt" and
           (s["addr"] % 4 or not classes["text"][0] <= s["addr"] < classes["text"][1])]
    check("map: every code symbol is word-aligned inside .text", not bad, repr(bad))
    bss = [s for s in mapping["symbol"] if s["name"] in ("__bss_start", "__bss_end")]
    check("map: __bss_start/__bss_end are word-aligned and bound .bss",
          len(bss) == 2 and all(s["addr"] % 4 == 0 for s in bss) and
          sorted(s["addr"] for s in bss) == list(classes["bss"]))

    with open(os.path.join(build, "firmware.sizes")) as f:
        rows = f.read().split("\n")
    table = dict(zip(rows[0].split(), map(int, rows[1].split())))
    check("size table printed by lanai-ld agrees with the map",
          all(table[c] == classes[c][1] - classes[c][0] for c in classes) and
          table["budget"] == mapping["budget"] and table["stack"] == mapping["stack"] and
          table["total"] == classes["bss"][1] + mapping["stack"], repr(table))

    counts = check_relocations(Elf(os.path.join(build, "firmware.o")), image, mapping,
                               "firmware.o")
    for t in (1, 3, 4, 5, 6):
        check("firmware.o exercises %s" % R_NAMES[t], counts.get(t, 0) > 0)
    check_disassembly(os.path.join(build, "firmware.elf"), mapping)
    check_runtime_objects(build)
    check_21_f(build, lanai_ld)
    check_trampoline(build, lanai_ld)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
