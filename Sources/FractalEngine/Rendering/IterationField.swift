/// Per-pixel results of a render, row-major with y = 0 the top row. Colour is computed from
/// this, so recolouring never re-iterates.
///
/// Escape-time families: `n2` = first n >= 1 with |z(n)| > 2, `nBig` = first n with
/// |z(n)| > 65536 (0 = did not escape within the limit), `smooth` = nBig + 1 -
/// ln(ln|z(nBig)| / ln 65536) / ln p (NaN when nBig is 0). Newton: `n2 == nBig` = iterations
/// to converge (0 = did not converge), `smooth` the continuous count, `root` = root index + 1.
public struct IterationField: Sendable, Equatable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The iteration limit the field was rendered with.
    public let maxIterations: Int
    /// Per pixel: the first n >= 1 with |z(n)| > 2, 0 for none (Newton: the iterations to converge).
    public package(set) var n2: [UInt32]
    /// Per pixel: the first n with |z(n)| > 65536, 0 when the pixel did not escape (Newton: the
    /// iterations to converge, 0 when it did not).
    public package(set) var nBig: [UInt32]
    /// Per pixel: the continuous iteration count, NaN when the pixel did not escape or converge.
    public package(set) var smooth: [Double]
    /// Newton only (empty otherwise): 0 = no root, k + 1 = root k.
    public package(set) var root: [UInt8]
    /// The number of roots the `root` values count (a Newton polynomial's degree); 0 for an
    /// escape-time field. Colouring reads it: root k's hue is k / `rootCount`.
    public package(set) var rootCount: Int
    /// Distance estimate, slope and trap data when the render asked for them
    /// (`RenderSettings.extras`).
    public package(set) var extras: ExtrasField?

    /// A field of `width` x `height` pixels that did not escape (counts 0, smooth NaN) and no
    /// extras; with a `root` array when `rootCount` > 0 (Newton: its polynomial's degree). For
    /// the package: a field comes from a render or a file (`NPYReader`), its sizes checked
    /// there, and its arrays are read-only outside (they always hold `width` x `height` pixels).
    package init(width: Int, height: Int, maxIterations: Int, rootCount: Int = 0) {
        self.width = width
        self.height = height
        self.maxIterations = maxIterations
        self.rootCount = Swift.max(0, rootCount)
        let count = width * height
        n2 = Array(repeating: 0, count: count)
        nBig = Array(repeating: 0, count: count)
        smooth = Array(repeating: .nan, count: count)
        root = rootCount > 0 ? Array(repeating: 0, count: count) : []
    }

    /// Calls `body` with a writer into the field's buffers (valid only inside `body`).
    @usableFromInline
    mutating func withWriter<R>(_ body: (FieldWriter) throws -> R) rethrows -> R {
        let hasRoots = self.hasRoots
        return try n2.withUnsafeMutableBufferPointer { n2 in
            try nBig.withUnsafeMutableBufferPointer { nBig in
                try smooth.withUnsafeMutableBufferPointer { smooth in
                    try root.withUnsafeMutableBufferPointer { root in
                        try body(
                            FieldWriter(
                                n2: n2.baseAddress!, nBig: nBig.baseAddress!, smooth: smooth.baseAddress!,
                                root: hasRoots ? root.baseAddress! : nil))
                    }
                }
            }
        }
    }

    /// The number of pixels: `width` times `height`.
    public var pixelCount: Int { width * height }
    /// Whether the field holds root indices (a Newton render).
    public var hasRoots: Bool { !root.isEmpty }

    /// The result at pixel (x, y), inside the field (as an array's subscript, a pixel outside
    /// it traps: check `width` and `height` first, or use `PixelPosition`s from a report).
    public subscript(x: Int, y: Int) -> PixelResult {
        let i = y * width + x
        return PixelResult(n2: n2[i], nBig: nBig[i], smooth: smooth[i], root: root.isEmpty ? 0 : root[i])
    }

    /// Iterations the render represents: for each pixel nBig, or the limit if it did not escape.
    public var iterationsRepresented: Int {
        var total = 0
        for v in nBig { total += v == 0 ? maxIterations : Int(v) }
        return total
    }

    /// Two fields are equal when every value is, NaN smooth values included.
    public static func == (a: IterationField, b: IterationField) -> Bool {
        guard a.width == b.width, a.height == b.height, a.maxIterations == b.maxIterations,
            a.n2 == b.n2, a.nBig == b.nBig, a.root == b.root, (a.extras == nil) == (b.extras == nil)
        else { return false }
        if let x = a.extras, let y = b.extras {
            for (u, v) in [(x.distance, y.distance), (x.slopeRe, y.slopeRe), (x.slopeIm, y.slopeIm), (x.trap, y.trap)] {
                guard u.count == v.count, zip(u, v).allSatisfy({ $0.bitPattern == $1.bitPattern }) else { return false }
            }
        }
        return zip(a.smooth, b.smooth).allSatisfy { $0.bitPattern == $1.bitPattern }
    }
}

/// One pixel's result (see `IterationField`).
public struct PixelResult: Sendable, Equatable {
    /// The first n >= 1 with |z(n)| > 2, 0 for none (Newton: the iterations to converge).
    public var n2: UInt32
    /// The first n with |z(n)| > 65536, 0 when the pixel did not escape (Newton: the iterations
    /// to converge, 0 when it did not).
    public var nBig: UInt32
    /// The continuous iteration count, NaN when the pixel did not escape or converge.
    public var smooth: Double
    /// Newton only: 0 = no root, k + 1 = root k; 0 for the other families.
    public var root: UInt8

    /// A pixel that did not escape (or converge) within the limit: counts 0, smooth NaN.
    public static let bounded = PixelResult(n2: 0, nBig: 0, smooth: .nan, root: 0)

    /// A result from its values; `root` is 0 except for Newton.
    @inlinable public init(n2: UInt32, nBig: UInt32, smooth: Double, root: UInt8 = 0) {
        self.n2 = n2
        self.nBig = nBig
        self.smooth = smooth
        self.root = root
    }

    /// Whether the pixel escaped (`nBig` is not 0); for Newton, whether it converged.
    public var escaped: Bool { nBig != 0 }
}

/// Writes pixel results into an `IterationField`'s storage from several threads, each to its
/// own pixels. Valid only while the field's buffers are pinned (inside `IterationField.withWriter`).
///
/// Unchecked Sendable: raw pointers into those pinned buffers; no two threads write the same
/// pixel (each tile, and each pixel of a pass over a subset, has one thread).
@usableFromInline
struct FieldWriter: @unchecked Sendable {
    @usableFromInline let n2: UnsafeMutablePointer<UInt32>
    @usableFromInline let nBig: UnsafeMutablePointer<UInt32>
    @usableFromInline let smooth: UnsafeMutablePointer<Double>
    @usableFromInline let root: UnsafeMutablePointer<UInt8>?

    @inlinable @inline(__always)
    func write(_ i: Int, _ r: PixelResult) {
        n2[i] = r.n2
        nBig[i] = r.nBig
        smooth[i] = r.smooth
        root?[i] = r.root
    }
}
