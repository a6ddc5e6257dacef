import FractalEngine
import FractalNumerics

// Goals, in order: colours that fit the view at any depth (neighbouring pixels must not jump
// across the palette where counts run into the millions); a pure function of the field, so
// the same bytes for any thread count; explicit settings that reproduce the image when stored.
//
// Histogram colouring: the phase follows the share of the view's pixels with a lower count,
// so each cycle of the palette covers about the same area whatever the counts are
// (Wikipedia, "Plotting algorithms for the Mandelbrot set", histogram coloring). Kalles
// Fraktaler's "histogram" method stretches [min, max] linearly instead; with counts bunched
// near a minibrot that leaves most of the view in one band. The table keeps 33 counts
// (`histogramKnots` + 1 quantiles) and interpolates between them, so it fits in a location
// file and one table can colour every frame of a sequence.
extension ColorSettings {
    /// Cycles of the palette across the view that `.automatic` resolves to.
    public static let automaticCycles = 4.0
    /// Segments of the histogram table (quantiles at k / histogramKnots, k = 0...histogramKnots).
    public static let histogramKnots = 32
    /// At most this many values enter the quantiles (every s-th escaped sample beyond it).
    static let quantileSampleLimit = 1 << 20

    /// These settings with nothing left to take from the field: `.automatic` becomes the
    /// histogram scale with `automaticCycles` cycles across the view and offset 0 (or, for
    /// Newton fields, orbit traps and fields where fewer than two pixels escaped, linear with
    /// density 1 and offset 0); a histogram without `quantiles` gets the field's. Other
    /// settings come back unchanged.
    ///
    /// `field` is what is coloured: with supersampling, every sample.
    ///
    /// Postconditions: the result's scale is not `.automatic`, a histogram result has
    /// quantiles, and `resolved(for:)` of the result returns it unchanged.
    public func resolved(for field: IterationField) -> ColorSettings {
        guard scale == .automatic || (scale == .histogram && quantiles == nil) else { return self }
        var out = self
        let table = field.hasRoots || trap != nil ? nil : ColorSettings.quantiles(of: field, smooth: smooth)
        if scale == .automatic {
            out.density = table == nil ? 1 : ColorSettings.automaticCycles
            out.offset = 0
            out.scale = table == nil ? .linear : .histogram
        }
        if out.scale == .histogram { out.quantiles = table ?? [0, 0] }
        return out
    }

    /// The histogram table of `field`: the counts (smooth or n2) of the pixels that get palette
    /// colours, at shares k / histogramKnots, each interpolated linearly between the two
    /// nearest order statistics (numpy's default quantile). Nil when fewer than two count.
    public static func quantiles(of field: IterationField, smooth: Bool) -> [Double]? {
        var values: [Double] = []
        values.reserveCapacity(Swift.min(field.pixelCount, quantileSampleLimit))
        let total = field.pixelCount
        // The pixels Colorizer gives palette colours, with a finite count.
        func counts(_ i: Int) -> Bool {
            smooth ? field.nBig[i] != 0 && field.smooth[i].isFinite : field.nBig[i] != 0 || field.n2[i] != 0
        }
        var counted = 0
        for i in 0..<total where counts(i) { counted += 1 }
        let stride = Swift.max(1, (counted + quantileSampleLimit - 1) / quantileSampleLimit)
        var k = 0
        for i in 0..<total where counts(i) {
            if k % stride == 0 { values.append(smooth ? field.smooth[i] : Double(field.n2[i])) }
            k += 1
        }
        guard values.count >= 2 else { return nil }
        values.sort()
        let n = values.count
        return (0...histogramKnots).map { j in
            let p = Double(j) * Double(n - 1) / Double(histogramKnots)
            let lo = Swift.min(Int(p), n - 1), hi = Swift.min(lo + 1, n - 1)
            return values[lo] + (values[hi] - values[lo]) * (p - Double(lo))
        }
    }

    /// The share in [0, 1] of the view below `value` by the table `q`: piecewise linear
    /// through (q[k], k / (q.count - 1)), and outside [q.first, q.last] the straight line of
    /// the whole table's mean slope (so counts of other views, in a sequence, still cycle).
    ///
    /// Edge cases: a flat table (q.first == q.last), or one of fewer than two entries, gives 0
    /// everywhere.
    @inlinable
    public static func histogramShare(_ value: Double, _ q: [Double]) -> Double {
        guard q.count >= 2 else { return 0 }
        let last = q.count - 1
        let lo = q[0], hi = q[last]
        guard hi > lo else { return 0 }
        if value <= lo { return (value - lo) / (hi - lo) }
        if value >= hi { return 1 + (value - hi) / (hi - lo) }
        // The last knot at or below value: q[i] <= value < q[i + 1], so q[i + 1] > q[i].
        var a = 0, b = last
        while b - a > 1 {
            let m = (a + b) / 2
            if q[m] <= value { a = m } else { b = m }
        }
        return (Double(a) + (value - q[a]) / (q[a + 1] - q[a])) / Double(last)
    }
}
