/*
 * date.c - calendar arithmetic (see date.h).
 */
#include "base/date.h"

int64_t xlog_utc_day(int64_t utc_ns)
{
    int64_t day = utc_ns / XLOG_NS_PER_DAY;
    return utc_ns % XLOG_NS_PER_DAY < 0 ? day - 1 : day;
}

/* Civil date from days since 1970-01-01, by eras of 400 years (146097 days):
 * a year is taken to start on 1 March so that the leap day comes last. */
void xlog_date_of_day(int64_t day, int *year, int *month, int *mday)
{
    int64_t z = day + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t day_of_era = z - era * 146097;
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t month_index = (5 * day_of_year + 2) / 153; /* 0 = March */
    *mday = (int)(day_of_year - (153 * month_index + 2) / 5 + 1);
    *month = (int)(month_index < 10 ? month_index + 3 : month_index - 9);
    *year = (int)(year_of_era + era * 400 + (*month <= 2));
}
