#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz entry: $CC, $CFLAGS, $LIB_FUZZING_ENGINE and
# $OUT come from the platform, KSRC from the Dockerfile.
exec "$SRC/ksim/fuzz/build.sh"
