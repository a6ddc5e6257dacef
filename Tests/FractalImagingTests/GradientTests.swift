import FractalEngine
import FractalImaging
import FractalNumerics
import Testing

@Suite("Gradients and supersampling")
struct GradientTests {
    @Test("a gradient file's stops, spread evenly or placed, interpolate linearly and cyclically")
    func stops() throws {
        let even = try Gradient.parse("# fire\n000000\n#ff0000\n\nffff00\nffffff  # white\n")
        #expect(even.stops.map(\.position) == [0, 0.25, 0.5, 0.75])
        #expect(even.color(at: 0.25) == RGB(1, 0, 0))
        #expect(even.color(at: 0.375) == RGB(1, 0.5, 0))
        #expect(even.color(at: 1.25) == RGB(1, 0, 0))  // one cycle per unit
        #expect(even.color(at: 0.875) == RGB(0.5, 0.5, 0.5))  // white back to black across 1
        let placed = try Gradient.parse("0.5 0000ff\n0.1 ff0000\n")
        #expect(placed.stops.map(\.position) == [0.1, 0.5])
        func close(_ a: RGB, _ b: RGB) -> Bool {
            Swift.abs(a.r - b.r) + Swift.abs(a.g - b.g) + Swift.abs(a.b - b.b) < 1e-12
        }
        #expect(close(placed.color(at: 0.3), RGB(0.5, 0, 0.5)))
        // From blue at 0.5 around through 1 to red at 0.1: 0.55 of the 0.6 span.
        #expect(close(placed.color(at: 0.05), RGB(11.0 / 12, 0, 1.0 / 12)))
        for bad in [
            "", "# nothing\n", "12345\n", "0.5 ff0000\n00ff00\n", "1.5 ff0000\n", "0.5 ff0000\n0.5 00ff00\n", "a b c\n",
        ] {
            #expect(throws: GradientError.self, "\(bad)") { try Gradient.parse(bad) }
        }
    }

    @Test("with k x k samples a pixel each pixel is the mean colour of its samples")
    func supersample() throws {
        var field = IterationField(width: 4, height: 2, maxIterations: 100)
        for i in 0..<8 where i != 5 {
            field.n2[i] = UInt32(i + 1)
            field.nBig[i] = UInt32(i + 3)
            field.smooth[i] = Double(i) * 3.7 + 1
        }
        // Resolved from every sample, as `image` resolves the automatic scale.
        let settings = ColorSettings(palette: .hot).resolved(for: field)
        #expect(settings.scale == .histogram)
        let image = try Colorizer.image(field, settings: settings, bitDepth: .sixteen, supersample: 2)
        #expect(
            try Colorizer.image(field, settings: ColorSettings(palette: .hot), bitDepth: .sixteen, supersample: 2)
                == image)
        #expect(image.width == 2 && image.height == 1)
        for px in 0..<2 {
            var sum = (0.0, 0.0, 0.0)
            for (x, y) in [(2 * px, 0), (2 * px + 1, 0), (2 * px, 1), (2 * px + 1, 1)] {
                let c = Colorizer.color(field[x, y], rootCount: 0, settings: settings)
                sum = (sum.0 + c.r, sum.1 + c.g, sum.2 + c.b)
            }
            #expect(image.sample(x: px, y: 0) == RGB(sum.0 / 4, sum.1 / 4, sum.2 / 4).words)
        }
    }
}

@Suite("Shading by the distance estimate and slope")
struct ShadingTests {
    @Test("boundary shading darkens by sqrt(distance / width); slope light by the normal's angle to the light")
    func shading() {
        let p = PixelResult(n2: 10, nBig: 12, smooth: 12.5)
        var settings = ColorSettings(palette: .gray)
        let base = Colorizer.color(p, rootCount: 0, settings: settings)
        settings.boundaryWidth = 4
        let near = Colorizer.color(
            p, extras: .init(distance: 1, slopeRe: 1, slopeIm: 0), rootCount: 0, settings: settings)
        #expect(Swift.abs(near.r - base.r * 0.5) < 1e-12)
        let far = Colorizer.color(
            p, extras: .init(distance: 9, slopeRe: 1, slopeIm: 0), rootCount: 0, settings: settings)
        #expect(far == base)
        settings.boundaryWidth = nil
        settings.slope = .init(angle: 0, height: 1, strength: 1)
        let lit = Colorizer.color(
            p, extras: .init(distance: 9, slopeRe: 1, slopeIm: 0), rootCount: 0, settings: settings)
        let dark = Colorizer.color(
            p, extras: .init(distance: 9, slopeRe: -1, slopeIm: 0), rootCount: 0, settings: settings)
        #expect(lit == base && dark == RGB(0, 0, 0))
        // A trap colours by -32 ln(distance), inside the set too.
        settings.slope = nil
        settings.trap = .point(re: 0, im: 0)
        let inside = Colorizer.color(
            .bounded, extras: .init(trap: Float(Math.exp(-0.5))), rootCount: 0, settings: settings)
        #expect(Swift.abs(inside.r - Palette.gray.color(at: 0.5).r) < 1e-6)  // Float's rounding of the distance
        #expect(
            Colorizer.color(.bounded, extras: .init(trap: Float(Math.exp(-0.25))), rootCount: 0, settings: settings).r
                < 0.6)
    }
}
