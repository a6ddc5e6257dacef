import FractalEngine
import FractalImaging
import FractalNumerics
import Testing

@Suite("Palettes and colouring")
struct PaletteTests {
    func bytes(_ c: RGB) -> [UInt8] { let b = c.bytes; return [b.0, b.1, b.2] }

    @Test("each palette gives its known colours at known phases")
    func knownColours() {
        // Ramps run 0 -> 1 -> 0 over a cycle: phase 0.5 is the top of the ramp.
        #expect(bytes(Palette.hot.color(at: 0)) == [0, 0, 0])
        #expect(bytes(Palette.hot.color(at: 1.0 / 6)) == [255, 0, 0])  // ramp 1/3: red
        #expect(bytes(Palette.hot.color(at: 1.0 / 3)) == [255, 255, 0])  // ramp 2/3: yellow
        #expect(bytes(Palette.hot.color(at: 0.5)) == [255, 255, 255])
        #expect(bytes(Palette.cold.color(at: 1.0 / 6)) == [0, 0, 255])
        #expect(bytes(Palette.cold.color(at: 1.0 / 3)) == [0, 255, 255])
        #expect(bytes(Palette.cold.color(at: 0.5)) == [255, 255, 255])
        #expect(bytes(Palette.gray.color(at: 0.25)) == [128, 128, 128])
        #expect(bytes(Palette.gray.color(at: 0.75)) == [128, 128, 128])
        #expect(bytes(Palette.chromatic.color(at: 0)) == [255, 0, 0])
        #expect(bytes(Palette.chromatic.color(at: 1.0 / 3)) == [0, 255, 0])
        #expect(bytes(Palette.chromatic.color(at: 2.0 / 3)) == [0, 0, 255])
        #expect(bytes(Palette.chromatic.color(at: 1.0 / 6)) == [255, 255, 0])
        // Cosine: 0.5 + 0.5 cos(2 pi t + k 2 pi/3): at t = 0, (1, 0.25, 0.25).
        #expect(bytes(Palette.cosine.color(at: 0)) == [255, 64, 64])
        #expect(bytes(Palette.cosine.color(at: 0.5)) == [0, 191, 191])
    }

    @Test("every palette is periodic with period 1", arguments: Palette.allCases)
    func periodic(palette: Palette) {
        for t in stride(from: 0.0, to: 1, by: 0.0625) {
            #expect(palette.color(at: t) == palette.color(at: t + 3), "\(palette) at \(t)")
        }
    }

    @Test("interior, smooth on/off, density, offset and log scale")
    func colorizer() {
        let settings = ColorSettings(palette: .gray, density: 1, offset: 0, smooth: true)
        #expect(Colorizer.color(.bounded, rootCount: 0, settings: settings) == .black)
        var red = settings
        red.interior = RGB(1, 0, 0)
        #expect(Colorizer.color(.bounded, rootCount: 0, settings: red) == RGB(1, 0, 0))
        let p = PixelResult(n2: 4, nBig: 8, smooth: 8.5)
        // smooth 8.5 -> phase 8.5/32; integer n2 4 -> phase 4/32.
        #expect(Colorizer.color(p, rootCount: 0, settings: settings) == Palette.gray.color(at: 8.5 / 32))
        var flat = settings
        flat.smooth = false
        #expect(Colorizer.color(p, rootCount: 0, settings: flat) == Palette.gray.color(at: 4.0 / 32))
        var dense = settings
        dense.density = 2
        dense.offset = 0.25
        #expect(Colorizer.color(p, rootCount: 0, settings: dense) == Palette.gray.color(at: 17.0 / 32 + 0.25))
        var log = settings
        log.scale = .log
        #expect(Colorizer.color(p, rootCount: 0, settings: log) == Palette.gray.color(at: (32 * (1 + 8.5).log()) / 32))
    }

    @Test("Newton pixels: hue by root, darker when slower, interior when no root")
    func newton() {
        let settings = ColorSettings()
        let fast = Colorizer.color(PixelResult(n2: 2, nBig: 2, smooth: 2, root: 1), rootCount: 3, settings: settings)
        let slow = Colorizer.color(PixelResult(n2: 30, nBig: 30, smooth: 30, root: 1), rootCount: 3, settings: settings)
        #expect(fast.r > fast.g && fast.r > fast.b)  // root 1 of 3: hue 0, red
        #expect(slow.r < fast.r)
        let second = Colorizer.color(PixelResult(n2: 2, nBig: 2, smooth: 2, root: 2), rootCount: 3, settings: settings)
        #expect(second.g > second.r && second.g > second.b)  // hue 1/3: green
        #expect(Colorizer.color(.bounded, rootCount: 3, settings: settings) == .black)
    }
}

extension Double {
    func log() -> Double { FractalNumerics.Math.log(self) }
}
