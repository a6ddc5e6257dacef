import Fathom
import Foundation
import Testing

@Suite("Location files: JSON, Kalles Fraktaler .kfr, Fathom PNGs")
struct LocationFileTests {
    @Test("a KFR round trip of e1086 keeps every digit, and the KFR lines are Kalles Fraktaler's")
    func kfrRoundTrip() throws {
        let original = try LocationFile.read(path: try fixture("locations/e1086"))
        let kfr = try KFR.text(of: original)
        let lines = kfr.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 4)
        #expect(lines[0] == "Re: " + original.center[0])
        #expect(lines[1] == "Im: " + original.center[1])
        #expect(lines[2] == "Zoom: 1E1086")
        #expect(lines[3] == "Iterations: 600100")
        var back = try KFR.parse(kfr, path: "e1086.kfr")
        #expect(back.name == nil)
        back.name = original.name
        #expect(back.center == original.center)
        #expect(original.center[0].count > 1000)
        #expect(back.radius == original.radius)
        #expect(back.maxIterations == original.maxIterations)
        #expect(try back.location() == original.location())
    }

    @Test("zoom and radius convert both ways without losing the radius's digits", arguments: [
        "2e-1086", "3.725e-3", "1.6130239999999999e-213", "5e-51", "1.5", "7.77777777777777777777777777777e-4000",
    ])
    func zoomRadius(_ radius: String) throws {
        let zoom = try LocationFile.zoom(fromRadius: radius)
        let back = try LocationFile.radius(fromZoom: zoom)
        let a = try BigFloat(parsing: radius, precision: Precision(bits: 256))
        let b = try BigFloat(parsing: back, precision: Precision(bits: 256))
        #expect(a == b, "\(radius) -> zoom \(zoom) -> \(back)")
    }

    @Test("keys Fathom does not use are kept in order and written back; a non-Mandelbrot type is refused")
    func kfrExtraKeys() throws {
        let text = "Re: -0.75\r\nIm: 0.1\r\nZoom: 40\r\nIterations: 2000\r\nIterDiv: 0.010000\r\nColorMethod: 7\r\n"
            + "Colors: 255,0,0,0,255,0,\r\nPower: 3\r\nFractalType: 0\r\n"
        let file = try KFR.parse(text, path: "a.kfr")
        #expect(file.kfrExtra == [["IterDiv", "0.010000"], ["ColorMethod", "7"], ["Colors", "255,0,0,0,255,0,"]])
        #expect(try file.location().family == .multibrot(power: 3))
        #expect(file.radius == "5e-2")
        let out = try KFR.text(of: file)
        #expect(out.hasSuffix("FractalType: 0\r\nPower: 3\r\nIterDiv: 0.010000\r\nColorMethod: 7\r\nColors: 255,0,0,0,255,0,\r\n"))
        // Through JSON the kept keys survive too.
        let json = try JSONDecoder().decode(LocationFile.self, from: Data(file.jsonString().utf8))
        #expect(json.kfrExtra == file.kfrExtra)

        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nZoom: 1\nIterations: 100\nFractalType: 1\n", path: "b.kfr") }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nIterations: 100\n", path: "c.kfr") }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nZoom: 0\nIterations: 100\n", path: "d.kfr") }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nZoom: 1\nIterations: many\n", path: "e.kfr") }
        var julia = file
        julia.family = "julia"
        julia.juliaC = ["-0.8", "0.156"]
        #expect(throws: FathomError.notInKFR("julia")) { try KFR.text(of: julia) }
    }

    @Test("a file with every key Kalles Fraktaler 2.15 writes: the view and its rotation read, every other key kept and written back")
    func kf215File() throws {
        let path = try #require(Bundle.module.url(forResource: "Fixtures/kf215", withExtension: "kfr")).path
        let file = try LocationFile.read(path: path)
        let location = try file.location()
        #expect(location.centerRe == "-0.7436438870371587047521915061147723")
        #expect(location.centerIm == "0.1318259042053119493304103006391752")
        #expect(location.maxIterations == 4096)
        #expect(location.rotation == 30)
        #expect(location.family == .mandelbrot)
        // radius = 2 / Zoom = 2 / 4e5.
        #expect(try BigFloat(parsing: location.radius, precision: Precision(bits: 64)) == BigFloat(parsing: "5e-6", precision: Precision(bits: 64)))
        // Every line of the file that Fathom does not read is kept, in order.
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n").map(String.init)
        let unread = lines.filter { line in !KFR.knownKeys.contains(String(line.prefix { $0 != ":" })) }
        #expect(unread.count == 40)
        #expect(file.kfrExtra?.map { $0[0] } == unread.map { String($0.prefix { $0 != ":" }) })
        #expect(file.kfrExtra?.first { $0[0] == "Colors" }?[1] == "10,20,30,200,180,40,250,250,250,40,90,160,")
        #expect(file.kfrExtra?.first { $0[0] == "MultiColors" }?[1] == "")
        #expect(file.kfrExtra?.last == ["Version", "2150200"])
        // Written back: the view (rotation as RotateAngle) and every kept key.
        let out = try KFR.parse(KFR.text(of: file), path: "out.kfr")
        #expect(out.kfrExtra == file.kfrExtra)
        #expect(try out.location() == location)
        #expect(try KFR.text(of: file).contains("\r\nRotateAngle: 30.0\r\n"))
        // An older file's Rotate means the same.
        let old = try KFR.parse("Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\nRotate: -12.5\r\nRatio: 360\r\n", path: "old.kfr")
        #expect(try old.location().rotation == -12.5)
    }

    @Test("the engine settings, colour and view travel in the JSON and in the PNG Fathom writes")
    func engineInPNG() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try FathomProcess.run(["render", "--quiet", "--preset", "seahorse", "--size", "24x16", "--iterations", "300",
                                       "--glitches", "detect", "--bla-epsilon", "1e-9", "--palette", "hot", "--output", "s.png"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        let file = try LocationFile.read(path: folder + "/s.png")
        #expect(file.engine == LocationFile.EngineSettings(glitches: "detect", blaEpsilon: 1e-9))
        #expect(file.color?.palette == .hot)
        #expect(file.width == 24 && file.height == 16 && file.maxIterations == 300)
        #expect(try file.location().centerRe == Presets.named("seahorse")!.location.centerRe)

        // info reads all three formats; convert writes .kfr and .json; a .kfr renders.
        let info = try FathomProcess.run(["info", "s.png"], in: folder)
        #expect(info.code == 0 && info.stdout.contains("engine: glitches detect, bla-epsilon 1e-09"), "\(info.stdout)")
        #expect(try FathomProcess.run(["convert", "s.png", "s.kfr"], in: folder).code == 0)
        #expect(try FathomProcess.run(["convert", "s.kfr", "t.json"], in: folder).code == 0)
        let kfrInfo = try FathomProcess.run(["info", "s.kfr"], in: folder)
        #expect(kfrInfo.code == 0 && kfrInfo.stdout.contains("radius: 3.725e-3"), "\(kfrInfo.stdout)")
        let again = try LocationFile.read(path: folder + "/t.json")
        #expect(try again.location().centerIm == file.location().centerIm)
        let fromKFR = try FathomProcess.run(["render", "--quiet", "--location", "s.kfr", "--size", "8x8", "--output", "k.png"], in: folder)
        #expect(fromKFR.code == 0, "\(fromKFR.stderr)")
        let bad = try FathomProcess.run(["convert", "s.png", "s.txt"], in: folder)
        #expect(bad.code == 64 && !FileManager.default.fileExists(atPath: folder + "/s.txt"))
    }
}

@Suite("Progress line")
struct ProgressTests {
    @Test("percent, elapsed time and an ETA at the average speed so far")
    func line() {
        #expect(ProgressMeter.line(fraction: 0.25, elapsed: 10) == " 25%  0:10 elapsed, ETA 0:30")
        #expect(ProgressMeter.line(fraction: 0.005, elapsed: 3) == "  0%  0:03 elapsed")
        #expect(ProgressMeter.line(fraction: 1, elapsed: 4000) == "100%  1:06:40 elapsed")
        #expect(ProgressMeter.duration(59.6) == "1:00")
        let start = Date(timeIntervalSince1970: 0)
        let meter = ProgressMeter(start: start, interval: 1)
        #expect(meter.update(0.1, now: start.addingTimeInterval(2)) == " 10%  0:02 elapsed, ETA 0:18")
        #expect(meter.update(0.2, now: start.addingTimeInterval(2.5)) == nil)  // within the interval
        #expect(meter.update(1, now: start.addingTimeInterval(2.6)) == "100%  0:03 elapsed")  // the end always shows
    }
}
