// For the portable `fathom` (make portable): glibc 2.35 gave hypot and hypotf new symbol
// versions; linked with --wrap=hypot --wrap=hypotf, calls go to the versions every glibc since
// 2.2.5 has, so the binary runs on glibc 2.34. Unused in normal builds.
#if defined(__linux__) && defined(__x86_64__)
__asm__(".symver fathom_hypot_compat,hypot@GLIBC_2.2.5");
__asm__(".symver fathom_hypotf_compat,hypotf@GLIBC_2.2.5");
double fathom_hypot_compat(double, double);
float fathom_hypotf_compat(float, float);
double __wrap_hypot(double x, double y) { return fathom_hypot_compat(x, y); }
float __wrap_hypotf(float x, float y) { return fathom_hypotf_compat(x, y); }
#endif
