import ArbitraryPrecision

/// Iterates a list of pixels directly in MPFR (`MPFREscape`) at the viewport's precision:
/// the renderer's last resort for pixels still at risk after the 106-bit pass.
struct MPFRPixelKernel: TileKernel {
    let viewport: Viewport
    let family: Family
    let maxIterations: Int
    let subset: [Int]

    func run(_ range: Range<Int>, _ writer: FieldWriter) {
        let mpfr = MPFREscape(precision: viewport.precision)
        for j in range {
            let i = subset[j]
            writer.write(
                i,
                mpfr.iterate(
                    pixelX: i % viewport.width, pixelY: i / viewport.width, viewport: viewport,
                    family: family, maxIterations: maxIterations))
        }
    }
}
