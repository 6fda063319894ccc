/*
 * digits.h - decimal digits, written two at a time: the integers of a
 * message (format.c) and the fraction of a second of a line's time
 * (layouts/fields.h) are written on every line.
 *
 * Why two at a time: a digit pair is one division by 100 (a multiply and a
 * shift) and one two-byte copy from a table, where a digit at a time is a
 * division by 10 and a store per digit.  Values below 2^32 are divided in
 * 32 bits, which are most of them.
 */
#ifndef XLOG_DIGITS_H
#define XLOG_DIGITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* "00" "01" ... "99" (format.c) */
extern const char xlog_digit_pairs[200];

/* Writes the last count digits of value (leading zeros included) so that
 * they end just before end; returns their start. */
static inline char *xlog_digits_before(char *end, uint64_t value, int count)
{
    for (; count >= 2 && value > UINT32_MAX; count -= 2) {
        uint64_t q = value / 100;
        end -= 2;
        memcpy(end, xlog_digit_pairs + (value - q * 100) * 2, 2);
        value = q;
    }
    /* below 2^32 now, or no more than one digit is left to write */
    uint32_t v = (uint32_t)(value > UINT32_MAX ? value % 100 : value);
    for (; count >= 2; count -= 2) {
        uint32_t q = v / 100;
        end -= 2;
        memcpy(end, xlog_digit_pairs + (v - q * 100) * 2, 2);
        v = q;
    }
    if (count > 0)
        *--end = (char)('0' + v % 10);
    return end;
}

/* How many decimal digits value has (1 for 0). */
static inline __attribute__((always_inline)) int xlog_decimal_length(uint64_t value)
{
    static const uint64_t powers[20] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
        10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
        100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
    };
    uint64_t v = value | 1; /* 0 has as many digits as 1 */
    /* floor(log10(2^bits)) from the bit length (1233 / 4096 ~ log10(2)):
     * the digit count or one less */
    int guess = ((64 - __builtin_clzll(v)) * 1233) >> 12;
    return guess + (v >= powers[guess]);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 digits of value (below 10^8, leading zeros included) as ASCII, the
 * first in the lowest byte: both halves of 4 digits, then both digit pairs
 * of each half, then both digits of each pair, are split at once in lanes
 * of one 64-bit word (the lanes hold below 10000, then 100: the multiplies
 * that divide by 100 and by 10 stay within them). */
static inline __attribute__((always_inline)) uint64_t xlog_digits8(uint32_t value)
{
    uint64_t x = (value / 10000) | ((uint64_t)(value % 10000) << 32);
    uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007f0000007full; /* x / 100 for x < 10^4 */
    x = hundreds | ((x - hundreds * 100) << 16);
    uint64_t tens = ((x * 103) >> 10) & 0x000f000f000f000full; /* x / 10 for x < 100 */
    x = tens | ((x - tens * 10) << 8);
    return x + 0x3030303030303030ull;
}
#endif

/* Writes the last count digits of value (leading zeros included) at out;
 * returns out + count.  It may write up to 8 bytes in all when count is
 * less than 8: out needs room for 8 bytes (the bytes after the digits are
 * left undefined). */
static inline __attribute__((always_inline)) char *xlog_digits_at(char *out, uint64_t value,
                                                                   int count)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (count <= 8) {
        if (count > 0) {
            uint32_t low = (uint32_t)(value < 100000000u ? value : value % 100000000u);
            uint64_t word = xlog_digits8(low) >> (8 * (8 - count));
            memcpy(out, &word, 8);
        }
        return out + count;
    }
    if (count <= 16) {
        uint64_t high = value / 100000000u % 100000000u;
        uint64_t word = xlog_digits8((uint32_t)high) >> (8 * (16 - count));
        memcpy(out, &word, 8);
        word = xlog_digits8((uint32_t)(value % 100000000u));
        memcpy(out + count - 8, &word, 8);
        return out + count;
    }
#endif
    xlog_digits_before(out + count, value, count);
    return out + count;
}

#endif
