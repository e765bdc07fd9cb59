#!/usr/bin/env python3
"""make_corpus.py — writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/): small valid
inputs of each reader, in each target's input layout (see the header of fuzz/fuzz_<target>.cpp), plus
a few near misses. Run from the repository root: python3 fuzz/make_corpus.py. The seeds are committed;
libFuzzer writes what it finds elsewhere (tools/fuzz.sh: build-fuzz/corpus/)."""
import gzip, os, random, struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def text(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def config():
    z = "\0"
    put("config", "copy_row", "include: [inc.yaml]\nexperiment: copy-softmax-smoke\nmodel:\n  attention:\n    type: softmax\n"
        + z + text("configs/copy/base.yaml") + z + "train.steps=3\nmodel.layers=~default\n+model.attention.softmax_temp=0.5\n")
    put("config", "base", text("configs/base.yaml") + z + z + "data.name=mnist\nmodel.type=image\n")
    put("config", "speech_bilstm", "include: [inc.yaml]\nmodel:\n  type: bilstm\n" + z + text("configs/speech/base.yaml"))
    put("config", "mnist_reformer", "include: [inc.yaml]\nschedule:\n  name: step\n  milestones: [10, 20]\nmodel:\n"
        "  attention:\n    type: reformer\n    chunk_size: 16\n" + z + text("configs/mnist/base.yaml") + z + "train.time_budget=1.5\n")
    put("config", "cycle", "include: inc.yaml\n" + z + "include: main.yaml\n")
    put("config", "nulls", "model:\n  layers: ~default\n  heads:\n" + z + z + "model.d_ff=\n+optim.x=1\n")
    put("config", "strings", 'experiment: "a b: c"\ndata:\n  root: "/tmp/x y"\n  corpus: héllo\n  name: \'copy\'\n')


def idx_file(dims, payload):
    return struct.pack(">I", 0x800 + len(dims)) + b"".join(struct.pack(">I", d) for d in dims) + bytes(payload)


def idx():
    images = idx_file([2, 2, 2], range(8))
    labels = idx_file([2], [1, 9])
    put("idx", "mnist", bytes([2]) + struct.pack("<I", len(images)) + images + labels)
    gz = gzip.compress(images, mtime=0)
    put("idx", "mnist_gz", bytes([2]) + struct.pack("<I", len(gz)) + gz + gzip.compress(labels, mtime=0))
    put("idx", "labels", bytes([0]) + struct.pack("<I", len(labels)) + labels)
    put("idx", "truncated", bytes([2]) + struct.pack("<I", 10) + images[:10] + labels[:6])


def cifar():
    rec = lambda label, v: bytes([label]) + bytes([v % 256] * 3072)
    put("cifar", "two_records", rec(3, 7) + rec(9, 200))
    put("cifar", "bad_label", rec(10, 1))
    put("cifar", "short", rec(1, 2)[:100])


def manifest():
    put("speech_manifest", "three", "train\tu1\ta.wav\tAH0 B K\ndev\tu2\t/abs/b.wav\tIY1\n# comment\n\ntest\tu3\tc.wav\tZH SH\r\n")
    put("speech_manifest", "spaces", "train u1 a.wav AH\n")
    put("speech_manifest", "dup", "train\tu1\ta.wav\tAH\ntrain\tu1\tb.wav\tB\n")


def wav_bytes(samples, fmt=1, extensible=False, extra=b""):
    data = b"".join(struct.pack("<h", s) for s in samples)
    if extensible:
        fmt_body = struct.pack("<HHIIHH", 0xFFFE, 1, 16000, 32000, 2, 16) + struct.pack("<HHI", 22, 16, 4)
        fmt_body += struct.pack("<H", 1) + b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
    else:
        fmt_body = struct.pack("<HHIIHH", fmt, 1, 16000, 32000, 2, 16)
    chunks = b"fmt " + struct.pack("<I", len(fmt_body)) + fmt_body + extra
    chunks += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def wav():
    rng = random.Random(1)
    put("wav", "one_window", wav_bytes([rng.randint(-3000, 3000) for _ in range(560)]))
    put("wav", "short", wav_bytes([1, -1, 2, -2, 3]))
    put("wav", "extensible_list", wav_bytes([5] * 20, extensible=True, extra=b"LIST\x03\x00\x00\x00abc\x00"))
    put("wav", "float", wav_bytes([0] * 4, fmt=3))


def checkpoint():
    rng = random.Random(2)
    for n in (0, 24, 96, 256, 700):
        put("checkpoint", f"random_{n}", bytes(rng.randrange(256) for _ in range(n)))


if __name__ == "__main__":
    for make in (config, idx, cifar, manifest, wav, checkpoint):
        make()
