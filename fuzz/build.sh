#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script: builds every ksim fuzz target with
# the platform's $CC, $CFLAGS and $LIB_FUZZING_ENGINE (libFuzzer, AFL++ or
# honggfuzz driver) into $OUT, plus seed corpora and dictionaries.
#
# The kernel tree is an input, as everywhere in ksim: KSRC (default: the
# Debian linux-source-6.12 that scripts/ksim-kernel extracts;
# .clusterfuzzlite/Dockerfile fetches the same release from kernel.org).
#
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link" \
#     LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out fuzz/build.sh
# The repository is where this script is (OSS-Fuzz sets $SRC to /src, the
# parent of every checkout, so $SRC cannot name it).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
WORK=${WORK:-$OUT/work}
CC=${CC:-clang}
CFLAGS=${CFLAGS:-}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}
KSRC=${KSRC:-$(python3 "$ROOT/scripts/ksim-kernel" --version | cut -f1)}

# Sanitizers come from $CFLAGS (the platform picks them), not from ksim.
cmake -S "$ROOT" -B "$WORK" -G Ninja -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" \
	-DKSIM_SANITIZE= -DKSIM_FUZZ=ON -DKSIM_FUZZ_SMOKE=OFF \
	-DKSIM_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DKSRC="$KSRC"
# The fuzz targets are the configured build's (ksim-manifest.json, written by
# the components' ksim_component() calls): name and binary, one per line.
targets=$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["components"]:
	for f in c["fuzz"]:
		print(f["name"], f["binary"])' "$WORK/ksim-manifest.json")
echo "$targets" | while read -r t bin; do
	cmake --build "$WORK" --target "fuzz_$t"
	cp "$bin" "$OUT/$t"
	python3 "$ROOT/fuzz/gen_corpus.py" "$t" --out "$WORK/seeds-$t" --dict "$OUT/$t.dict"
	cp "$ROOT"/fuzz/corpus/"$t"/* "$WORK/seeds-$t/"
	(cd "$WORK/seeds-$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
done
