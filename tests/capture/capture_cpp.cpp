// capture_cpp.cpp - what a C++ user may pass to XLOG (xlog.h, "C++"):
// every case compiles without a warning (-Wall -Wextra -Werror; not
// -Wpedantic, under which %p with an int * and %m warn as with printf),
// writes the line printf would, whole, and takes the entry it must:
// xlog_impl_log_<n> for scalars, xlog_impl_log_captured with strings, the
// variable argument list (neither) for what only it carries.
// Built by CMake (test_capture_cpp, C++17, plain and under the sanitizers)
// and by tests/header/cpp_arguments.sh with g++ and clang++ in
// each C++ standard they know (C++11 and later), linked with
// -Wl,--wrap=xlog_impl_log_captured,--wrap=xlog_impl_log_<n> so that it
// counts those calls; it prints "ok: N cases" and exits 0, or names what
// differs and exits 1.
#include <xlog.h>

#include "read_logs.hpp"

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

static int captured_calls, slot_calls;

extern "C" {
void __real_xlog_impl_log_captured(xlog_impl_site *, int, uint32_t, const xlog_impl_arg *, size_t);
void __wrap_xlog_impl_log_captured(xlog_impl_site *site, int level, uint32_t shape,
                                   const xlog_impl_arg *args, size_t bytes)
{
    captured_calls++;
    __real_xlog_impl_log_captured(site, level, shape, args, bytes);
}
#define COUNTED(n, parameters, ...)                                                        \
    void __real_xlog_impl_log_##n parameters;                                              \
    void __wrap_xlog_impl_log_##n parameters                                               \
    {                                                                                      \
        slot_calls++;                                                                      \
        __real_xlog_impl_log_##n(__VA_ARGS__);                                             \
    }
typedef uint64_t u;
COUNTED(0, (xlog_impl_site * s, int l), s, l)
COUNTED(1, (xlog_impl_site * s, int l, u a), s, l, a)
COUNTED(2, (xlog_impl_site * s, int l, u a, u b), s, l, a, b)
COUNTED(3, (xlog_impl_site * s, int l, u a, u b, u c), s, l, a, b, c)
COUNTED(4, (xlog_impl_site * s, int l, u a, u b, u c, u d), s, l, a, b, c, d)
COUNTED(5, (xlog_impl_site * s, int l, u a, u b, u c, u d, u e), s, l, a, b, c, d, e)
COUNTED(6, (xlog_impl_site * s, int l, u a, u b, u c, u d, u e, u f), s, l, a, b, c, d, e, f)
COUNTED(7, (xlog_impl_site * s, int l, u a, u b, u c, u d, u e, u f, u g), s, l, a, b, c, d, e,
        f, g)
COUNTED(8, (xlog_impl_site * s, int l, u a, u b, u c, u d, u e, u f, u g, u h), s, l, a, b, c,
        d, e, f, g, h)
}

// What a case must give: its line, its message, and how many of its two
// calls took each entry.
struct expected_case {
    int line;
    std::string message;
    int captured, slots;
};
static std::vector<expected_case> cases;
static int failures;

// Each statement is called this many times: the first prepares its site;
// a site of scalars only takes xlog_impl_log_<n>, one with strings
// xlog_impl_log_captured, which set its pass, and from then on it writes in
// the calling code (xlog_impl_put, xlog_impl_put_text), where that is done
// (x86-64, not ThreadSanitizer).
#define CASE_CALLS 4

// The calls of a statement, then what they must have written and taken:
// want_captured 2: every call xlog_impl_log_captured (or one call when the
// later ones are written in the calling code), 0: none; want_slots
// 2: every call xlog_impl_log_<n>, 1: every call after the first, 0: none
// (or, for 2 and 1, one call when the later ones are written in the
// calling code).
#define CASE(want_captured, want_slots, message, ...)                                      \
    do {                                                                                   \
        int captured_before = captured_calls, slots_before = slot_calls;                   \
        for (int k = 0; k < CASE_CALLS; k++)                                               \
            xlog_info(__VA_ARGS__);                                                        \
        expected_case c = {__LINE__, message, captured_calls - captured_before,            \
                           slot_calls - slots_before};                                     \
        int captured = (want_captured) == 0 ? 0 : XLOG_IMPL_PUT_INLINE ? 1 : CASE_CALLS;  \
        int slots = (want_slots) == 0       ? 0                                            \
                    : XLOG_IMPL_PUT_INLINE ? 1                                             \
                                           : CASE_CALLS - 2 + (want_slots);                \
        if (c.captured != captured || c.slots != slots) {                                  \
            std::fprintf(stderr, "line %d: %d captured and %d slot calls, expected %d and %d\n", \
                         __LINE__, c.captured, c.slots, captured, slots);                  \
            failures++;                                                                    \
        }                                                                                  \
        cases.push_back(c);                                                                \
    } while (0)

enum plain_color { plain_red, plain_green = 7 };
enum class scoped_int { one = -1 };
enum class scoped_long : long { big = 1L << 40 };
enum class scoped_byte : unsigned char { top = 255 };
struct opaque;

static std::string name() { return "temporary"; }

static void run_cases()
{
    // Integers of every type, as printf promotes them.
    CASE(0, 2, "1 0 A -5 200 -300 65000 -7", "%d %d %c %hhd %hhu %hd %hu %d", true, false, 'A',
         (signed char)-5, (unsigned char)200, (short)-300, (unsigned short)65000, -7);
    CASE(0, 2, "4294967289", "%u", -7u);
    CASE(0, 2, "-9223372036854775808 18446744073709551615 -3 18446744073709551614",
         "%ld %lu %lld %llu", INT64_MIN, UINT64_MAX, -3LL, 18446744073709551614ULL);
    CASE(0, 2, "-8 255 -16 65535 -32 4294967295 -64 18446744073709551615",
         "%" PRId8 " %" PRIu8 " %" PRId16 " %" PRIu16 " %" PRId32 " %" PRIu32 " %" PRId64
         " %" PRIu64,
         (int8_t)-8, (uint8_t)255, (int16_t)-16, (uint16_t)65535, (int32_t)-32,
         (uint32_t)4294967295u, (int64_t)-64, (uint64_t)UINT64_MAX);
    CASE(0, 2, "18446744073709551615 -2 -9223372036854775807 66 9731 128512",
         "%zu %td %jd %d %u %u", SIZE_MAX, (ptrdiff_t)-2, (intmax_t)-INTMAX_MAX, (wchar_t)L'B',
         (unsigned)u'\u2603', (unsigned)U'\U0001F600');
    CASE(0, 2, "9731 128512 66", "%d %u %d", u'\u2603', U'\U0001F600', L'B');
    // Bit-fields, volatile and const volatile values: read once, by value.
    struct {
        unsigned three : 3;
        int five : 5;
    } bits = {5, -3};
    volatile int shaky = 4;
    const volatile long steady = -5;
    CASE(0, 2, "5 -3 4 -5", "%u %d %d %ld", bits.three, bits.five, shaky, steady);
    // Floating point.
    CASE(0, 2, "1.500000 -0.6667 1e+300 0x1p+0", "%f %.4f %g %a", 1.5f, -2.0 / 3, 1e300, 1.0);
    CASE(0, 0, "2.250000 x", "%Lf %s", (long double)2.25, "x"); // the variable arguments only
    // Enums, scoped or not, as their underlying integer.
    CASE(0, 2, "0 7 -1 1099511627776 255", "%d %d %d %ld %d", plain_red, plain_green,
         scoped_int::one, scoped_long::big, scoped_byte::top);
    // Pointers, and nullptr.
    int x = 0;
    const opaque *nothing = nullptr;
    CASE(0, 2, "0x1234 0x10 (nil) (nil)", "%p %p %p %p", (void *)0x1234,
         (const int *)(uintptr_t)0x10, nothing, nullptr);
    (void)x;
    int numbers[3] = {1, 2, 3};
    char address[32];
    std::snprintf(address, sizeof address, "%p", (void *)numbers);
    CASE(0, 2, address, "%p", (void *)numbers);
    CASE(0, 2, address, "%p", numbers); // an array: its address
    // Strings: pointers, arrays, NULL.
    char buffer[16] = "buffer";
    const char fixed[] = "fixed";
    char *mutable_text = buffer;
    const char *volatile hidden = nullptr; // so that -Wformat-overflow does not see it
    const char *none = hidden;
    CASE(2, 0, "literal buffer fixed buffer (null) ", "%s %s %s %s %s %s", "literal", buffer, fixed,
         mutable_text, none, "");
    CASE(2, 0, "bytes signed", "%s %s", (const unsigned char *)"bytes",
         (const signed char *)"signed");
    // std::string by value, no c_str().
    std::string s = "alice";
    const std::string cs = "const";
    std::string empty;
    CASE(2, 0, "user alice const [] temporary", "user %s %s [%s] %s", s, cs, empty, name());
    const std::string &bound = s;
    CASE(2, 0, "alice alice", "%s %s", bound, std::move(bound));
    std::string with_nul("a\0b", 3);
    CASE(2, 0, "a", "%s", with_nul); // as printf prints its c_str()
#if __cplusplus >= 201703L
    // std::string_view: its bytes only, no NUL needed.
    std::string_view view = std::string_view("viewpoint", 4);
    std::string_view empty_view;
    CASE(2, 0, "[view] [] [alice]", "[%s] [%s] [%s]", view, empty_view, std::string_view(s));
    // Through the variable arguments (%.*s reads its precision first):
    // kept whole, in a string that ends.
    CASE(0, 0, "vi|view", "%.*s|%s", 2, view, view);
    // The manual's example (xlog.h, XLOG).
    {
        std::string user = "alice";
        std::string_view host = std::string_view("db1.example.org", 3);
        enum class state : unsigned char { up = 1 } now = state::up;
        CASE(2, 0, "user alice on db1: state 1, 5 B", "user %s on %s: state %d, %zu B", user, host,
             now, user.size());
    }
#endif
    // Strings among scalars, and 8 arguments.
    CASE(2, 0, "alice=42 2.50 0x10 -7 literal q 255", "%s=%d %.2f %p %ld %s %c %u", s, 42, 2.5,
         (void *)0x10, -7L, "literal", 'q', scoped_byte::top);
    // A std::string where %.*s reads it, %m, a wide string: the variable
    // arguments.
    CASE(0, 0, "[ali]", "[%.*s]", 3, s);
    errno = ENOENT;
    CASE(0, 0, "alice: No such file or directory", "%s: %m", s);
    CASE(0, 0, "wide alice", "%ls %s", L"wide", s);
    // No argument; more than 8.
    CASE(0, 1, "no argument", "no argument"); // the first call prepares the site
    CASE(0, 0, "1 2 3 4 5 6 7 8 9", "%d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
    // Each argument evaluated once.
    int counter = 0;
    CASE(2, 0, "once", "%s", (counter++, s.substr(0, 0) + "once"));
    CASE(0, 2, "7", "%d", (counter++, 7)); // and in the calling code
    if (counter != 2 * CASE_CALLS) {
        std::fprintf(stderr, "an argument was evaluated %d times in %d calls\n", counter,
                     2 * CASE_CALLS);
        failures++;
    }
    // A format that is not a literal: the variable arguments, string
    // objects as printf sees them.
    const char *format = getenv("XLOG_TEST_NO_SUCH_VARIABLE") ? "" : "dynamic %s %d";
    CASE(0, 0, "dynamic alice 5", format, s, 5);
    // Rate-limited calls take the variable arguments too: one call.
    int captured_before = captured_calls, slots_before = slot_calls, rated_line = __LINE__ + 1;
    xlog_info_every_n(1, "rated %s", s);
    if (captured_calls != captured_before || slot_calls != slots_before) {
        std::fprintf(stderr, "the rated call did not take the variable arguments\n");
        failures++;
    }
    cases.push_back({rated_line, "rated alice", 0, 0});
}

// The slot of each scalar type is the 8 bytes the library's variable
// argument path writes for its conversion (record.h,
// xlog_record_encode_args; the C11 slots of test_capture): an int or
// anything promoted to one sign-extended as va_arg(ap, int) reads it, even
// unsigned; 64-bit integers and pointers as they are; a float as the
// double's bits.  (A zero-extended unsigned would print the same lines.)
template <class T> static uint64_t slot_of(T v)
{
    return xlog_impl_cpp::of<T>::type::slot(v);
}
static uint64_t bits_of(double d)
{
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return bits;
}
#define SAME_SLOT(value, bytes)                                                                  \
    do {                                                                                         \
        if (slot_of(value) != (uint64_t)(bytes)) {                                               \
            std::fprintf(stderr, "slot of %s: %#" PRIx64 ", expected %#" PRIx64 "\n", #value,    \
                         slot_of(value), (uint64_t)(bytes));                                     \
            failures++;                                                                          \
        }                                                                                        \
    } while (0)

static void check_slots()
{
    SAME_SLOT(-7, 0xfffffffffffffff9u);
    SAME_SLOT(0xfffffff0u, 0xfffffffffffffff0u); // as va_arg(ap, int) reads it for %u
    SAME_SLOT((unsigned char)200, 200);
    SAME_SLOT((signed char)-5, 0xfffffffffffffffbu);
    SAME_SLOT((short)-300, (uint64_t)(int64_t)-300);
    SAME_SLOT((unsigned short)65000, 65000);
    SAME_SLOT(true, 1);
    SAME_SLOT('z', 'z');
    SAME_SLOT(U'\U0001F600', 0x1F600);
    SAME_SLOT(INT64_MIN, 0x8000000000000000u);
    SAME_SLOT(UINT64_MAX, 0xffffffffffffffffu);
    SAME_SLOT((ptrdiff_t)-2, 0xfffffffffffffffeu);
    SAME_SLOT(1.5f, bits_of(1.5));
    SAME_SLOT(-2.0 / 3, bits_of(-2.0 / 3));
    SAME_SLOT(plain_green, 7);
    SAME_SLOT(scoped_int::one, 0xffffffffffffffffu);
    SAME_SLOT(scoped_long::big, 1ull << 40);
    SAME_SLOT(scoped_byte::top, 255);
    SAME_SLOT((void *)0x1234, 0x1234);
    SAME_SLOT(nullptr, 0);
}

int main()
{
    char dir[] = "/tmp/xlog-capture-cpp-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    xlog_config cfg = xlog_defaults();
    cfg.dir = dir;
    cfg.use_environment = 0;
    if (xlog_open(&cfg) != 0)
        return 1;
    check_slots();
    run_cases();
    xlog_close();
    std::string text = read_logs(dir);

    // Each line whole: "<date> <time> [INFO] capture_cpp.cpp:<line> run_cases <tid> <message>".
    std::string tid = std::to_string((long)syscall(SYS_gettid));
    std::istringstream lines(text);
    std::string line;
    size_t n = 0;
    for (size_t i = 0; i < cases.size(); i++) {
        int calls = i + 1 == cases.size() ? 1 : CASE_CALLS; // the rated call is made once
        for (int k = 0; k < calls; k++) {
            if (!std::getline(lines, line)) {
                std::fprintf(stderr, "missing line for the case of line %d\n", cases[i].line);
                return 1;
            }
            n++;
            // The time's two fields, checked for shape only.
            size_t time_end = line.find(' ', line.find(' ') + 1);
            std::string rest = time_end == std::string::npos ? "" : line.substr(time_end);
            std::string expected = " [INFO] capture_cpp.cpp:" + std::to_string(cases[i].line) +
                                   " run_cases " + tid + " " + cases[i].message;
            if (rest != expected || line.size() < 30 || line[4] != '-' || line[10] != ' ') {
                std::fprintf(stderr, "line %d:\n  got      %s\n  expected %s\n", cases[i].line,
                             line.c_str(), expected.c_str());
                failures++;
            }
        }
    }
    if (std::getline(lines, line)) {
        std::fprintf(stderr, "an extra line: %s\n", line.c_str());
        failures++;
    }
    std::printf("%s: %zu cases, %zu lines, %d failures\n", failures ? "FAIL" : "ok", cases.size(),
                n, failures);
    return failures ? 1 : 0;
}
