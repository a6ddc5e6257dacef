// libpng, found through pkg-config (Package.swift: `CLibPNG`), so Homebrew's prefix is found
// on macOS as /usr on Debian. CPNG's C wraps it; nothing imports this module from Swift.
#include <png.h>
