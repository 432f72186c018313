// Units and conversions. Quantities are doubles whose names carry their unit
// (`seconds`, `bytes`, `flops`, `watts`, `joules`); these constants convert the
// customary multiples at the boundary (files, catalog, reports).
#pragma once

namespace hetsched::units {

inline constexpr double kilo = 1e3;
inline constexpr double mega = 1e6;
inline constexpr double giga = 1e9;
inline constexpr double tera = 1e12;

inline constexpr double gigabyte = 1e9;                  // bytes
inline constexpr double gibibyte = 1073741824.0;         // bytes
inline constexpr double teraflops = 1e12;                // flop/s
inline constexpr double gigabit_per_second = 1e9 / 8.0;  // bytes/s
inline constexpr double microsecond = 1e-6;              // seconds
inline constexpr double hour = 3600.0;                   // seconds
inline constexpr double joules_per_kwh = 3.6e6;

}  // namespace hetsched::units
