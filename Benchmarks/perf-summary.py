#!/usr/bin/env python3
"""Where a profiled run's CPU time went, per request: a `perf record -g` file read back.

    Benchmarks/perf-summary.py PERF_DATA COUNT UNIT [TOP]

COUNT is how many UNITs (requests, records) the recorded run served. Prints, in nanoseconds of
CPU a UNIT: the kernel's and user space's totals, the TOP (default 25) functions by their own time
(where the samples landed), and the TOP functions of Sectional's own modules by inclusive time
(samples with the function anywhere on their stack, each counted once). Swift names are
demangled with the toolchain's `swift-demangle`.

Read with care: the call chains come from frame pointers, which Swift's code keeps and Debian's C
libraries do not, so a sample inside libc or libmicrohttpd may lose the frames above it (a
function's inclusive time is then too low, and its own time lands on `[unknown]` or the library).
"""
import collections
import os
import shutil
import subprocess
import sys

# Sectional's modules as Swift mangles them (length-prefixed names).
OWN_MODULES = ("10HTTPServer", "16SectionalService", "9ListModel", "9ListStore", "10JSONOutput", "8Identity", "7Locking")


def samples(path):
    """Yields each sample's frames, leaf first, as (symbol, is_kernel)."""
    script = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym,dso"],
                            capture_output=True, text=True, errors="replace", check=True).stdout
    frames = []
    for line in script.splitlines():
        line = line.strip()
        if not line:
            if frames:
                yield frames
            frames = []
            continue
        parts = line.split(None, 1)
        rest = parts[1] if len(parts) > 1 else "[unknown]"
        symbol, _, dso = rest.rpartition(" (")
        frames.append((symbol or rest, "kernel" in dso or dso.startswith("[k")))
    if frames:
        yield frames


def demangled(names):
    """Readable names for `names` (Swift's demangled, others as they are)."""
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not os.path.exists(tool):
        return {name: name for name in names}
    out = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines())) if out.count("\n") >= len(names) - 1 else {name: name for name in names}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, count, unit = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 25
    header = subprocess.run(["perf", "report", "-i", path, "--header-only"], capture_output=True, text=True).stdout
    frequency = next((int(part.split("=")[1].strip().split()[0].rstrip(","))
                      for line in header.splitlines() if "sample_freq" in line
                      for part in line.split(",") if "sample_freq" in part), 999)
    per = 1e9 / frequency / max(count, 1)  # nanoseconds of CPU a sample stands for, per unit
    own_time, inclusive = collections.Counter(), collections.Counter()
    kernel = user = 0
    for frames in samples(path):
        leaf, in_kernel = frames[0]
        own_time[(leaf, in_kernel)] += 1
        if in_kernel:
            kernel += 1
        else:
            user += 1
        inclusive.update({symbol for symbol, _ in frames if symbol.startswith("$s") and any(m in symbol[:40] for m in OWN_MODULES)})
    names = demangled(sorted({s for s, _ in own_time} | set(inclusive)))
    print(f"{int(count):,} {unit}s, {kernel + user:,} samples at {frequency} Hz: CPU a {unit} "
          f"{(kernel + user) * per:,.0f} ns (kernel {kernel * per:,.0f}, user space {user * per:,.0f})")
    print(f"\nOwn time, ns a {unit} (k: kernel):")
    for (symbol, in_kernel), n in own_time.most_common(top):
        print(f"{n * per:8,.0f}  {'k ' if in_kernel else '  '}{names.get(symbol, symbol)[:150]}")
    print(f"\nSectional's functions by inclusive time, ns a {unit}:")
    for symbol, n in inclusive.most_common(top):
        print(f"{n * per:8,.0f}  {names.get(symbol, symbol)[:150]}")


if __name__ == "__main__":
    main()
