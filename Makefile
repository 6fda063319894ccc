# The commands a newcomer types.  Everything real is in CMake; this file only
# names the builds.
#
#   make run      build, then run the benchmark that reproduces the seed notes
#   make test     build and run every test: plain, ASan+UBSan, TSan, fuzzing
#   make install  install library, header, pkg-config and CMake files (PREFIX)
#   make fuzz     a long fuzzing run (FUZZ_SECONDS, default 600)

BUILD        ?= build
JOBS         ?= $(shell nproc)
PREFIX       ?= /usr/local
FUZZ_SECONDS ?= 600
# CI turns warnings into errors.
CMAKE_ARGS   ?= -DXLOG_WERROR=$(if $(CI),ON,OFF)

.PHONY: all build run test install fuzz clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/programs/xlog-bench/xlog-bench --quick

test:
	CMAKE_ARGS="$(CMAKE_ARGS)" JOBS="$(JOBS)" tests/run-all.sh

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

fuzz:
	CC=clang cmake -S . -B build-fuzz -DXLOG_BUILD_FUZZERS=ON -DXLOG_BUILD_TESTS=OFF -DXLOG_BUILD_PROGRAMS=OFF $(CMAKE_ARGS)
	cmake --build build-fuzz -j $(JOBS)
	build-fuzz/fuzz/fuzz_format -max_total_time=$(FUZZ_SECONDS) fuzz/corpus/format

clean:
	rm -rf build build-asan build-tsan build-fuzz
