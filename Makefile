# The commands a newcomer types.  Everything real is in CMake; this file only
# names the builds.
#
#   make run            build, then run the benchmark: xlog against the
#                       usual ways of logging to a file, on this machine
#   make test           install what the tests need (scripts/install-deps.sh),
#                       then build and run every test: plain, ASan+UBSan,
#                       TSan, fuzzing
#   make install        install the library, header, pkg-config and CMake
#                       files, and xlog-recover (which writes the lines of
#                       processes that ended without xlog_close) under PREFIX
#   make install-bench  install the benchmark program, xlog-bench, alone
#   make fuzz           a long fuzzing run of each fuzzer (FUZZ_SECONDS each,
#                       default 600) on a working copy of its seed corpus
#
# run and install need only a C compiler, CMake and zlib: the build
# configures the tests only when what they need is there.

BUILD        ?= build
JOBS         ?= $(shell nproc)
PREFIX       ?= /usr/local
FUZZ_SECONDS ?= 600
# CI turns warnings into errors.
CMAKE_ARGS   ?= -DXLOG_WERROR=$(if $(CI),ON,OFF)

.PHONY: all build run deps test install install-bench fuzz clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/programs/xlog-bench/xlog-bench --quick

deps:
	scripts/install-deps.sh

test: deps
	CMAKE_ARGS="$(CMAKE_ARGS)" JOBS="$(JOBS)" tests/run-all.sh

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

install-bench: build
	cmake --install $(BUILD) --prefix $(PREFIX) --component bench

fuzz: deps
	CC=clang cmake -S . -B build-fuzz -DXLOG_BUILD_FUZZERS=ON -DXLOG_BUILD_TESTS=OFF -DXLOG_BUILD_PROGRAMS=OFF $(CMAKE_ARGS)
	cmake --build build-fuzz -j $(JOBS)
	for target in format escape config cat; do \
	  mkdir -p build-fuzz/corpus/$$target && cp -n fuzz/corpus/$$target/* build-fuzz/corpus/$$target/ && \
	  build-fuzz/fuzz/fuzz_$$target -max_total_time=$(FUZZ_SECONDS) build-fuzz/corpus/$$target || exit 1; \
	done

clean:
	rm -rf build build-asan build-tsan build-fuzz
