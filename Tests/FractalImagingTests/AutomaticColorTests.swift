import Foundation
import FractalEngine
import FractalImaging
import FractalNumerics
import Testing

@Suite("Automatic colouring: the histogram of the view's counts")
struct AutomaticColorTests {
    /// A field of one row with these smooth counts (nil: the pixel did not escape).
    func field(_ counts: [Double?]) -> IterationField {
        var f = IterationField(width: counts.count, height: 1, maxIterations: 100_000_000)
        for (i, c) in counts.enumerated() {
            guard let c else { continue }
            f.smooth[i] = c
            f.n2[i] = UInt32(c.rounded(.down))
            f.nBig[i] = f.n2[i] + 1
        }
        return f
    }

    func bytes(_ c: RGB) -> [UInt8] { let b = c.bytes; return [b.0, b.1, b.2] }

    @Test("the quantiles of 0, 1, ..., 1024 are 32 k, and pixels that did not escape do not count")
    func quantilesClosedForm() throws {
        let q = try #require(
            ColorSettings.quantiles(of: field((0...1024).map(Double.init) + [nil, nil]), smooth: true))
        #expect(q == (0...32).map { Double(32 * $0) })
        // Between order statistics, linearly (numpy's default): the quantiles of 0, 10 and 30
        // at k/32 are 20 k/32 up to the median and 10 + 40 (k/32 - 1/2) past it.
        let three = try #require(ColorSettings.quantiles(of: field([30, nil, 0, 10]), smooth: true))
        #expect(three[8] == 5 && three[16] == 10 && three[24] == 20 && three.first == 0 && three.last == 30)
        #expect(ColorSettings.quantiles(of: field([5, nil]), smooth: true) == nil)
    }

    @Test("the share is piecewise linear through the table and follows its mean slope outside")
    func share() {
        let q = [0.0, 10, 30]
        #expect(ColorSettings.histogramShare(5, q) == 0.25)
        #expect(ColorSettings.histogramShare(10, q) == 0.5)
        #expect(ColorSettings.histogramShare(20, q) == 0.75)
        #expect(ColorSettings.histogramShare(30, q) == 1)
        #expect(ColorSettings.histogramShare(-15, q) == -0.5)
        #expect(ColorSettings.histogramShare(60, q) == 2)
        // Repeated counts: the share jumps over them, and stays monotone.
        let flatMiddle = [0.0, 10, 10, 10, 40]
        #expect(ColorSettings.histogramShare(10, flatMiddle) == 0.75)
        #expect(ColorSettings.histogramShare(9.999, flatMiddle) < 0.25)
        #expect(ColorSettings.histogramShare(25, flatMiddle) == 0.875)
        #expect(ColorSettings.histogramShare(7, [3, 3]) == 0)
    }

    @Test("counts near 5 million spread over 4 cycles across the view, where density 1 cycled 8 times a pixel")
    func deepCounts() throws {
        // 4097 pixels, counts 5,000,000 + 256 i: the old default moved 8 cycles from pixel to pixel.
        let counts = (0...4096).map { 5_000_000 + 256 * Double($0) }
        let f = field(counts)
        let auto = ColorSettings().resolved(for: f)
        #expect(auto.scale == .histogram && auto.density == ColorSettings.automaticCycles && auto.offset == 0)
        let q = try #require(auto.quantiles)
        #expect(q.count == ColorSettings.histogramKnots + 1 && q.first == counts.first && q.last == counts.last)
        // Uniform counts: the phase is 4 i / 4096 exactly (the table is linear here).
        for i in [0, 1, 1000, 2048, 4095, 4096] {
            let expected = Palette.cosine.color(at: 4 * Double(i) / 4096)
            #expect(bytes(Colorizer.color(f[i, 0], rootCount: 0, settings: auto)) == bytes(expected), "pixel \(i)")
        }
        let image = try Colorizer.image(f, settings: ColorSettings())
        let old = try Colorizer.image(f, settings: ColorSettings(density: 1))
        func meanStep(_ im: RGBImage) -> Double {
            var sum = 0.0
            for x in 1..<im.width {
                let a = im[x - 1, 0], b = im[x, 0]
                let d = [Double(a.0) - Double(b.0), Double(a.1) - Double(b.1), Double(a.2) - Double(b.2)]
                sum += (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).squareRoot()
            }
            return sum / Double(im.width - 1)
        }
        // 1/1024 of a cycle a pixel moves the cosine palette by 0.5 x 2 pi / 1024 x 255 x sqrt(3/2)
        // ~ 0.96 before rounding to bytes.
        #expect(meanStep(image) < 2)
        // Density 1 steps 8 whole cycles: the same colour every pixel (a moire of one colour).
        #expect(meanStep(old) == 0)
    }

    @Test("the histogram follows the distribution: half the pixels at one count take half the cycles")
    func equalises() throws {
        // 512 pixels between 1000 and 1001, 512 between 1001 and 9000.
        let low: [Double?] = (0..<512).map { 1000 + Double($0) / 512 }
        let high: [Double?] = (0..<512).map { 1001 + 7999 * Double($0) / 511 }
        let auto = ColorSettings().resolved(for: field(low + high))
        let q = try #require(auto.quantiles)
        // The median lies between the 512th and 513th counts, 1000 + 511/512 and 1001.
        #expect(Swift.abs(q[16] - 1001) < 0.01)
        #expect(Swift.abs(ColorSettings.histogramShare(1001, q) - 0.5) < 1e-4)
    }

    @Test("explicit settings are left as they are and colour by the old formula, bit for bit")
    func explicitUnchanged() throws {
        let f = field([12.25, 700.5, nil, 3_456_789.125, 99])
        let settings = [
            ColorSettings(density: 0.37, offset: 0.2), ColorSettings(palette: .hot, density: 1),
            ColorSettings(palette: .gray, offset: 0.5), ColorSettings(palette: .chromatic, scale: .log),
            ColorSettings(palette: .cold, density: 3, scale: .linear),
        ]
        for s in settings {
            #expect(s.scale != .automatic)
            #expect(s.resolved(for: f) == s)
            let image = try Colorizer.image(f, settings: s)
            for x in 0..<f.width {
                let p = f[x, 0]
                var expected = s.interior
                if p.escaped {
                    // The formula of Documentation/Coloring.md before automatic colouring.
                    let v = s.scale == .log ? 32 * Math.log(1 + p.smooth) : p.smooth
                    expected = s.palette.color(at: v * s.density / 32 + s.offset)
                }
                let got = image[x, 0]
                #expect([got.0, got.1, got.2] == bytes(expected), "\(s) pixel \(x)")
            }
        }
        // Density or offset alone mean linear, as they always did.
        #expect(ColorSettings(density: 2).scale == .linear && ColorSettings(offset: 0.1).density == 1)
        #expect(ColorSettings().scale == .automatic && ColorSettings(palette: .hot).scale == .automatic)
    }

    @Test("resolving is a pure function of the counts: pixel order does not matter, and it is idempotent")
    func deterministic() {
        var generator = SplitMix64(seed: 7)
        let counts: [Double?] = (0..<5000).map { _ in
            let u = generator.unit()
            return u < 0.1 ? nil : 20_000 + 3_000 * u * u
        }
        var shuffled = counts
        for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
            shuffled.swapAt(i, Int(generator.next() % UInt64(i + 1)))
        }
        let a = ColorSettings().resolved(for: field(counts)), b = ColorSettings().resolved(for: field(shuffled))
        #expect(a == b)
        #expect(a.resolved(for: field([1, 2, 3])) == a)
        // An explicit histogram without a table takes the field's, and keeps its density.
        var h = ColorSettings(density: 2, scale: .histogram)
        h = h.resolved(for: field(counts))
        #expect(h.quantiles == a.quantiles && h.density == 2)
    }

    @Test("Newton, orbit traps and views where nothing escapes resolve to linear, density 1, offset 0")
    func fallbacks() {
        let linear = ColorSettings(density: 1, offset: 0)
        let f = field([10, 20, 30, 40])
        var newton = f
        newton.rootCount = 3
        newton.root = [1, 2, 3, 0]
        #expect(ColorSettings().resolved(for: newton) == linear)
        var trap = ColorSettings()
        trap.trap = .point(re: 0, im: 0)
        var trapLinear = linear
        trapLinear.trap = trap.trap
        #expect(trap.resolved(for: f) == trapLinear)
        #expect(ColorSettings().resolved(for: field([nil, nil, 5])) == linear)
    }
}
