"""Minimal ELF32 big-endian reader for the LANai tests: an implementation independent of
lanai-ld's own reader, used to cross-check what the linker wrote."""
import struct


class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        assert d[:4] == b"\x7fELF" and d[4] == 1 and d[5] == 2, path + ": not ELF32 BE"
        (self.type, self.machine, _, self.entry, self.phoff, self.shoff, _, _, _,
         self.phnum, _, self.shnum, self.shstrndx) = struct.unpack_from(">HHIIIIIHHHHHH", d, 16)
        self.sections = []
        for i in range(self.shnum):
            f = struct.unpack_from(">IIIIIIIIII", d, self.shoff + 40 * i)
            self.sections.append(dict(name_off=f[0], type=f[1], flags=f[2], addr=f[3],
                                      offset=f[4], size=f[5], link=f[6], info=f[7],
                                      align=f[8], entsize=f[9], index=i))
        shstr = self.sections[self.shstrndx]
        for s in self.sections:
            s["name"] = self.cstr(shstr["offset"] + s["name_off"])
        self.segments = [struct.unpack_from(">IIIIIIII", d, self.phoff + 32 * i)
                         for i in range(self.phnum)]
        self.symbols = []
        for s in self.sections:
            if s["type"] == 2:  # SHT_SYMTAB
                strtab = self.sections[s["link"]]
                for k in range(s["size"] // 16):
                    name, value, size, info, _, shndx = struct.unpack_from(
                        ">IIIBBH", d, s["offset"] + 16 * k)
                    self.symbols.append(dict(name=self.cstr(strtab["offset"] + name),
                                             value=value, size=size, bind=info >> 4,
                                             type=info & 15, shndx=shndx))

    def cstr(self, off):
        return self.data[off:self.data.index(b"\0", off)].decode()

    def relocations(self):
        """Yields (target section, offset, symbol dict, type, addend) for every RELA entry."""
        for s in self.sections:
            if s["type"] != 4:  # SHT_RELA
                continue
            target = self.sections[s["info"]]
            for k in range(s["size"] // 12):
                off, info, addend = struct.unpack_from(">IIi", self.data, s["offset"] + 12 * k)
                yield target, off, self.symbols[info >> 8], info & 0xFF, addend

    def section_bytes(self, s):
        return self.data[s["offset"]:s["offset"] + s["size"]]


def read_map(path):
    """Parses a lanai-ld map file into dicts keyed by record kind."""
    m = {"section": [], "symbol": [], "output": {}}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "entry":
                m["entry"] = (int(w[1], 16), w[2])
            elif w[0] == "memory":
                m["budget"], m["stack"] = int(w[1], 16), int(w[2], 16)
            elif w[0] == "output":
                m["output"][w[1]] = (int(w[2], 16), int(w[3], 16))
            elif w[0] == "section":
                m["section"].append(dict(addr=int(w[1], 16), size=int(w[2], 16), cls=w[3],
                                         name=w[4], file=w[5]))
            elif w[0] == "symbol":
                m["symbol"].append(dict(addr=int(w[1], 16), size=int(w[2], 16), kind=w[3],
                                        name=w[4]))
    return m
