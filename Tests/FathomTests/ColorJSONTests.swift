import Fathom
import Foundation
import Testing

@Suite("The colour of a location file: optional fields, checked values")
struct ColorJSONTests {
    func decode(_ color: String) throws(FileError) -> LocationFile {
        let json =
            #"{"family": "mandelbrot", "center": ["0", "0"], "radius": "1", "maxIterations": 100, "color": "# + color
            + "}"
        return try LocationFile.decodeJSON(Data(json.utf8), path: "c.json")
    }

    /// The reason a bad colour gives, as the CLI prints it after "is not a valid location file: ".
    func reason(_ color: String) -> String? {
        do {
            _ = try decode(color)
            return nil
        } catch {
            guard case .malformed(let path, let reason) = error, path == "c.json" else { return "\(error)" }
            return reason
        }
    }

    @Test("every field is optional: none is the automatic default, density or offset alone mean linear")
    func defaults() throws {
        let empty = try #require(try decode("{}").color)
        #expect(empty == ColorSettings())
        #expect(empty.scale == .automatic && empty.palette == .cosine && empty.interior == .black && empty.smooth)
        let noPalette = try #require(try decode(#"{"density": 2}"#).color)
        #expect(noPalette == ColorSettings(density: 2) && noPalette.scale == .linear && noPalette.offset == 0)
        #expect(try decode(#"{"offset": 0.5, "palette": "hot"}"#).color == ColorSettings(palette: .hot, offset: 0.5))
        #expect(try decode(#"{"scale": "log"}"#).color == ColorSettings(scale: .log))
        #expect(try decode(#"{"scale": "auto", "palette": "gray"}"#).color == ColorSettings(palette: .gray))
        var light = ColorSettings()
        light.slope = .init(angle: 30)
        #expect(try decode(#"{"slope": {"angle": 30}}"#).color == light)
    }

    @Test("what Fathom writes reads back the same: automatic, explicit and histogram colours")
    func roundTrip() throws {
        var histogram = ColorSettings(
            palette: .hot, density: 4, offset: 0.25, scale: .histogram, interior: RGB(0.5, 0, 1))
        histogram.quantiles = [100.5, 200, 200, 5_000_000.125]
        histogram.boundaryWidth = 2
        histogram.gradient = try Gradient.parse("000000\nFFAA00\n")
        for color in [ColorSettings(), ColorSettings(density: 0.3), histogram] {
            var file = LocationFile(location: Presets.named("seahorse")!.location)
            file.color = color
            let back = try LocationFile.decodeJSON(Data(file.jsonString().utf8), path: "x.json")
            #expect(back.color == color)
        }
        // The automatic default writes no density or offset (they have no meaning there).
        var file = LocationFile(location: Presets.named("seahorse")!.location)
        file.color = ColorSettings()
        #expect(file.jsonString().contains(#""scale":"auto""#) && !file.jsonString().contains("density"))
    }

    @Test(
        "bad values are refused with one line naming the field",
        arguments: [
            (#"{"interior": [300, -1, 0]}"#, "color.interior: [300, -1, 0] is not three components within 0...1"),
            (#"{"interior": [0.5, 0.5]}"#, "color.interior: [0.5, 0.5] is not three components within 0...1"),
            (#"{"interior": [0, 0, 0, 1]}"#, "color.interior: [0, 0, 0, 1] is not three components within 0...1"),
            (#"{"density": 0}"#, "color.density: 0 is not a finite number > 0"),
            (#"{"density": -2.5}"#, "color.density: -2.5 is not a finite number > 0"),
            (#"{"density": "dense"}"#, "field 'color.density' has the wrong type"),
            (#"{"palette": "rainbow"}"#, "color.palette: 'rainbow' is not one of hot, cold, gray, chromatic, cosine"),
            (#"{"scale": "sqrt"}"#, "color.scale: 'sqrt' is not one of auto, linear, log, histogram"),
            (
                #"{"scale": "auto", "density": 2}"#,
                "color.density: has no meaning with scale 'auto' (give scale linear, log or histogram)"
            ),
            (#"{"quantiles": [1, 2]}"#, "color.quantiles: only with scale 'histogram'"),
            (#"{"scale": "histogram", "quantiles": [5, 2]}"#, "color.quantiles: counts must not decrease"),
            (#"{"scale": "histogram", "quantiles": [5]}"#, "color.quantiles: needs 2 to 1025 counts, has 1"),
            (#"{"boundaryWidth": -1}"#, "color.boundaryWidth: -1 is not a width in pixels > 0"),
            (#"{"slope": {"angle": 45, "strength": 2}}"#, "color.slope.strength: 2 is not within 0...1"),
            (#"{"slope": {"height": 0}}"#, "color.slope.height: 0 is not a finite number > 0"),
            (
                #"{"gradient": {"stops": [{"position": 0, "color": [0, 2, 0]}]}}"#,
                "color.gradient.stops.0.color: [0, 2, 0] is not three components within 0...1"
            ),
        ])
    func refused(_ color: String, _ expected: String) {
        #expect(reason(color) == expected)
    }

    @Test("the CLI prints the reason after the file's name and exits 65")
    func cli() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let json =
            #"{"family": "mandelbrot", "center": ["0", "0"], "radius": "1", "maxIterations": 100, "color": {"interior": [300, -1, 0]}}"#
        try json.write(toFile: folder + "/bad.json", atomically: true, encoding: .utf8)
        let r = try FathomProcess.run(["render", "--quiet", "--location", "bad.json", "--size", "8x8"], in: folder)
        #expect(r.code == 65)
        #expect(
            r.stderr
                == "fathom: 'bad.json' is not a valid location file: color.interior: [300, -1, 0] is not three components within 0...1\n"
        )
    }

    @Test("a default render stores the resolved colours; rendering the stored file gives the same pixels")
    func storedResolved() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try FathomProcess.run(
            ["render", "--quiet", "--preset", "seahorse", "--size", "48x27", "--output", "a.png"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        let color = try #require(try LocationFile.read(path: folder + "/a.png").color)
        #expect(color.scale == .histogram && color.density == ColorSettings.automaticCycles && color.offset == 0)
        #expect(color.quantiles?.count == ColorSettings.histogramKnots + 1)
        let again = try FathomProcess.run(
            ["render", "--quiet", "--location", "a.png", "--output", "b.png"], in: folder)
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try PNGReader.read(path: folder + "/b.png") == PNGReader.read(path: folder + "/a.png"))
        // On an automatic colour --density keeps its old meaning (linear, offset 0); on the stored
        // histogram it sets the cycles across the view; --color-scale auto adapts again.
        _ = try FathomProcess.run(
            ["render", "--quiet", "--preset", "seahorse", "--size", "48x27", "--density", "2", "--output", "c.png"],
            in: folder)
        #expect(try LocationFile.read(path: folder + "/c.png").color == ColorSettings(density: 2))
        _ = try FathomProcess.run(
            ["render", "--quiet", "--location", "a.png", "--density", "2", "--output", "d.png"], in: folder)
        var twice = color
        twice.density = 2
        #expect(try LocationFile.read(path: folder + "/d.png").color == twice)
        _ = try FathomProcess.run(
            ["render", "--quiet", "--location", "c.png", "--color-scale", "auto", "--output", "e.png"], in: folder)
        #expect(try PNGReader.read(path: folder + "/e.png") == PNGReader.read(path: folder + "/a.png"))
        let info = try FathomProcess.run(["info", "a.png"], in: folder)
        #expect(info.stdout.contains("scale histogram (counts "), "\(info.stdout)")
    }
}
