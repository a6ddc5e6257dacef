import Fathom
import Foundation
import Testing

/// `Colorizer.image` colours with what the field holds, or says which setting it cannot serve:
/// never an image as if a setting were not there (Documentation/Coloring.md).
@Suite("Colouring checks what a setting needs")
struct ColorCheckTests {
    static func invalidField(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ColorError {
            if case .invalid(let field, _) = error { return field }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a Newton field knows its roots: coloured by root without being told how many")
    func newtonByRoot() throws {
        let location = try #require(Presets.named("newton")).location
        guard case .newton(let poly) = location.family else { Issue.record("the newton preset is not Newton"); return }
        let field = try Renderer.render(location: location, settings: RenderSettings(width: 24, height: 16)).field
        #expect(field.rootCount == poly.degree && field.hasRoots)
        let settings = ColorSettings(palette: .hot)
        let image = try Colorizer.image(field, settings: settings)
        let resolved = settings.resolved(for: field)
        var roots = Set<UInt8>()
        for y in 0..<field.height {
            for x in 0..<field.width {
                let expected = Colorizer.color(field[x, y], rootCount: poly.degree, settings: resolved).bytes
                #expect(image[x, y] == expected, "pixel \(x), \(y)")
                roots.insert(field[x, y].root)
            }
        }
        #expect(roots.count >= 2, "the view shows more than one root")
        // The same counts without their roots colour differently: the roots were used.
        var counts = field
        counts.root = []
        counts.rootCount = 0
        #expect(try Colorizer.image(counts, settings: settings) != image)
    }

    @Test("boundary, slope and trap need the field's extra data; without it, an error naming the setting")
    func extrasNeeded() throws {
        let location = try #require(Presets.named("seahorse")).location
        let plain = try Renderer.render(location: location, settings: RenderSettings(width: 32, height: 18)).field
        var boundary = ColorSettings(palette: .hot)
        boundary.boundaryWidth = 2
        var slope = ColorSettings(palette: .hot)
        slope.slope = ColorSettings.SlopeLight()
        var trap = ColorSettings(palette: .hot)
        trap.trap = .point(re: 0, im: 0)
        #expect(Self.invalidField { _ = try Colorizer.image(plain, settings: boundary) } == "boundaryWidth")
        #expect(Self.invalidField { _ = try Colorizer.image(plain, settings: slope) } == "slope")
        #expect(Self.invalidField { _ = try Colorizer.image(plain, settings: trap) } == "trap")
        // With the data rendered, each colours, and the boundary darkens some pixel.
        var settings = RenderSettings(width: 32, height: 18)
        settings.extras = ExtrasRequest(derivative: true, trap: .point(re: 0, im: 0))
        let full = try Renderer.render(location: location, settings: settings).field
        let shaded = try Colorizer.image(full, settings: boundary)
        #expect(shaded != (try Colorizer.image(full, settings: ColorSettings(palette: .hot))))
        _ = try Colorizer.image(full, settings: slope)
        _ = try Colorizer.image(full, settings: trap)
    }

    @Test("density and offset under the automatic scale are refused, not ignored")
    func densityWithAutomaticScale() throws {
        let field = try Renderer.render(
            location: try #require(Presets.named("seahorse")).location, settings: RenderSettings(width: 16, height: 9)
        ).field
        var settings = ColorSettings(palette: .gray)
        #expect(settings.scale == .automatic)
        settings.density = 4
        #expect(Self.invalidField { _ = try Colorizer.image(field, settings: settings) } == "density")
        settings.density = 1
        settings.offset = 0.25
        #expect(Self.invalidField { _ = try Colorizer.image(field, settings: settings) } == "offset")
        settings.scale = .linear
        _ = try Colorizer.image(field, settings: settings)
    }

    @Test("sizes, depths and supersampling that do not fit: errors, never traps")
    func sizes() throws {
        #expect(
            Self.invalidField { _ = try RGBImage(width: 2, height: 1, bitDepth: .sixteen, pixels: [1, 2, 3, 4, 5, 6]) }
                == "pixels")
        #expect(Self.invalidField { _ = try RGBImage(width: -1, height: -3, pixels: [1, 2, 3]) } == "width, height")
        #expect(Self.invalidField { _ = try RGBImage(width: .max, height: 2, pixels: []) } == "width, height")
        let field = IterationField(width: 4, height: 2, maxIterations: 10)
        #expect(
            Self.invalidField { _ = try Colorizer.image(field, settings: ColorSettings(), supersample: 3) }
                == "supersample")
        #expect(
            Self.invalidField { _ = try Colorizer.image(field, settings: ColorSettings(), supersample: 0) }
                == "supersample")
        #expect(BitDepth(rawValue: 12) == nil)
        let deep = try Colorizer.image(field, settings: ColorSettings(), bitDepth: .sixteen, supersample: 2)
        #expect(deep.width == 2 && deep.height == 1 && deep.pixels.count == 12)
        // A 16-bit image read at 8 bits: its samples rounded, no trap.
        let image = try RGBImage(width: 1, height: 1, bitDepth: .sixteen, pixels: [0xff, 0xff, 0x80, 0x00, 0, 0])
        #expect(image[0, 0] == (255, 128, 0))
    }

    @Test("a supersampled image of a size past the limits: LocationError, not an overflow trap")
    func supersampledHugeSize() throws {
        var file = LocationFile(location: try #require(Presets.named("seahorse")).location)
        file.supersample = 4
        let path = NSTemporaryDirectory() + "fathom-huge-\(getpid()).png"
        for (w, h) in [(Int.max / 2, 9), (16, Int.max / 3), (-4, 9)] {
            #expect(throws: LocationError.self) {
                try ImageRender.render(file, settings: RenderSettings(width: w, height: h), to: path)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("an .npy field's root count: given, checked against the roots in the file, or the largest there")
    func npyRootCount() throws {
        var field = IterationField(width: 3, height: 1, maxIterations: 10, rootCount: 3)
        field.root = [1, 3, 0]
        field.n2 = [2, 2, 0]
        field.nBig = [2, 2, 0]
        field.smooth = [2, 2, .nan]
        let path = NSTemporaryDirectory() + "fathom-roots-\(getpid()).npy"
        defer { unlink(path) }
        try NPYWriter.write(field, to: path)
        #expect(try NPYReader.read(path: path, rootCount: 5).rootCount == 5)
        #expect(try NPYReader.read(path: path).rootCount == 3)
        #expect(throws: NPYError.self) { try NPYReader.read(path: path, rootCount: 2) }
    }
}
