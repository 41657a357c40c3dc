/*
 * Timestamps for the native kernel (kernel.c lists its files; kernel.h documents both functions): whether a
 * record's timestamp is in the one canonical form the fast paths read, and its milliseconds, computed as
 * src/cost/filter.ts `eventTime` computes them. Anything else goes to Date.parse in JavaScript.
 */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include "kernel.h"

int sf_canonical_time(const uint8_t *t, size_t n) {
#define D(i) (t[i] >= '0' && t[i] <= '9')
#define V2(i) ((t[i] - '0') * 10 + (t[i + 1] - '0'))
  if (n < 20 || !(D(0) && D(1) && D(2) && D(3) && t[4] == '-' && D(5) && D(6) && t[7] == '-' && D(8) && D(9) && t[10] == 'T' && D(11) &&
                  D(12) && t[13] == ':' && D(14) && D(15) && t[16] == ':' && D(17) && D(18)))
    return 0;
  if (V2(5) < 1 || V2(5) > 12 || V2(8) < 1 || V2(8) > 31 || V2(11) > 23 || V2(14) > 59 || V2(17) > 59) return 0;
  size_t i = 19;
  if (t[i] == '.') {
    size_t d = 0;
    for (i++; i < n && D(i); i++) d++;
    if (d < 1 || d > 9) return 0;
  }
  return i == n - 1 && t[i] == 'Z';
#undef D
#undef V2
}

/* Days since 1970-01-01 of a proleptic Gregorian date (src/cost/calendar.ts `daysFromCivil`). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

double sf_time_ms(const uint8_t *t, size_t n) {
#define V(i) ((int64_t)(t[i] - '0'))
  const int64_t y = V(0) * 1000 + V(1) * 100 + V(2) * 10 + V(3);
  if (y < 100) return NAN;
  const int64_t mo = V(5) * 10 + V(6), d = V(8) * 10 + V(9), h = V(11) * 10 + V(12), mi = V(14) * 10 + V(15), s = V(17) * 10 + V(18);
  /* the fraction's first three digits, scaled as eventTime scales them */
  int64_t frac = 0;
  const size_t digits = n > 21 ? n - 21 : 0;
  if (digits >= 1) frac = V(20) * 100;
  if (digits >= 2) frac += V(21) * 10;
  if (digits >= 3) frac += V(22);
#undef V
  const double ms = (double)days_from_civil(y, mo, d) * 86400000.0 + (double)(h * 3600000 + mi * 60000 + s * 1000 + frac);
  return ms > 0 ? ms : NAN;
}
