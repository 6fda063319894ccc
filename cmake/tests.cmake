# Decides whether the tests are configured, and sets XLOG_TESTS.
#
# The tests need cmocka, a C++ compiler (the header is tested from C++) and
# Python 3 (the documentation test and the benchmark tool's test); the library
# needs none of them.  So with XLOG_BUILD_TESTS=AUTO, the default, a machine
# without them still builds, runs and installs xlog and is told how to get the
# tests; with ON, which `make test` passes, a missing one stops the
# configuration with the command that installs it.
set(XLOG_TESTS OFF)
if(XLOG_BUILD_TESTS) # AUTO or ON
  find_library(CMOCKA_LIBRARY cmocka)
  find_path(CMOCKA_INCLUDE_DIR cmocka.h)
  # check_language keeps a compiler it did not find as NOTFOUND in the cache
  # and never looks again: look again, since make test may have installed one.
  if(NOT CMAKE_CXX_COMPILER)
    unset(CMAKE_CXX_COMPILER CACHE)
  endif()
  include(CheckLanguage)
  check_language(CXX)
  find_package(Python3 COMPONENTS Interpreter)

  set(xlog_tests_missing "")
  if(NOT CMOCKA_LIBRARY OR NOT CMOCKA_INCLUDE_DIR)
    list(APPEND xlog_tests_missing "cmocka")
  endif()
  if(NOT CMAKE_CXX_COMPILER)
    list(APPEND xlog_tests_missing "a C++ compiler")
  endif()
  if(NOT Python3_FOUND)
    list(APPEND xlog_tests_missing "Python 3")
  endif()
  list(JOIN xlog_tests_missing ", " xlog_tests_missing)

  if(xlog_tests_missing STREQUAL "")
    set(XLOG_TESTS ON)
    enable_language(CXX)
    set(CMAKE_CXX_STANDARD 11)
    set(CMAKE_CXX_STANDARD_REQUIRED ON)
  elseif(XLOG_BUILD_TESTS STREQUAL "AUTO")
    message(STATUS "Tests not configured (missing: ${xlog_tests_missing}); "
                   "`make test` installs what they need")
  else()
    message(FATAL_ERROR "The tests need ${xlog_tests_missing}: "
                        "scripts/install-deps.sh installs them")
  endif()
endif()
