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

    @Test(
        "zoom and radius convert both ways without losing the radius's digits",
        arguments: [
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
        let text =
            "Re: -0.75\r\nIm: 0.1\r\nZoom: 40\r\nIterations: 2000\r\nIterDiv: 0.010000\r\nColorMethod: 7\r\n"
            + "Colors: 255,0,0,0,255,0,\r\nPower: 3\r\nFractalType: 0\r\n"
        let file = try KFR.parse(text, path: "a.kfr")
        #expect(file.kfrExtra == [["IterDiv", "0.010000"], ["ColorMethod", "7"], ["Colors", "255,0,0,0,255,0,"]])
        #expect(try file.location().family == .multibrot(power: 3))
        #expect(file.radius == "5e-2")
        let out = try KFR.text(of: file)
        #expect(
            out.hasSuffix(
                "FractalType: 0\r\nPower: 3\r\nIterDiv: 0.010000\r\nColorMethod: 7\r\nColors: 255,0,0,0,255,0,\r\n"))
        // Through JSON the kept keys survive too.
        let json = try JSONDecoder().decode(LocationFile.self, from: Data(file.jsonString().utf8))
        #expect(json.kfrExtra == file.kfrExtra)

        #expect(throws: FileError.self) {
            try KFR.parse("Re: 0\nIm: 0\nZoom: 1\nIterations: 100\nFractalType: 1\n", path: "b.kfr")
        }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nIterations: 100\n", path: "c.kfr") }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nZoom: 0\nIterations: 100\n", path: "d.kfr") }
        #expect(throws: FileError.self) { try KFR.parse("Re: 0\nIm: 0\nZoom: 1\nIterations: many\n", path: "e.kfr") }
        var julia = file
        julia.family = .julia
        julia.juliaC = ["-0.8", "0.156"]
        #expect(throws: FathomError.notInKFR("julia")) { try KFR.text(of: julia) }
    }

    @Test(
        "a file with every key Kalles Fraktaler 2.15 writes: the view and its rotation read, every other key kept and written back"
    )
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
        #expect(
            try BigFloat(parsing: location.radius, precision: Precision(bits: 64))
                == BigFloat(parsing: "5e-6", precision: Precision(bits: 64)))
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
        let old = try KFR.parse(
            "Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\nRotate: -12.5\r\nRatio: 360\r\n", path: "old.kfr")
        #expect(try old.location().rotation == -12.5)
    }

    @Test("the engine settings, colour and view travel in the JSON and in the PNG Fathom writes")
    func engineInPNG() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try FathomProcess.run(
            [
                "render", "--quiet", "--preset", "seahorse", "--size", "24x16", "--iterations", "300",
                "--glitches", "detect", "--bla-epsilon", "1e-9", "--palette", "hot", "--output", "s.png",
            ], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        let file = try LocationFile.read(path: folder + "/s.png")
        #expect(file.engine == LocationFile.EngineSettings(glitches: .detect, blaEpsilon: 1e-9))
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
        let fromKFR = try FathomProcess.run(
            ["render", "--quiet", "--location", "s.kfr", "--size", "8x8", "--output", "k.png"], in: folder)
        #expect(fromKFR.code == 0, "\(fromKFR.stderr)")
        let bad = try FathomProcess.run(["convert", "s.png", "s.txt"], in: folder)
        #expect(bad.code == 64 && !FileManager.default.fileExists(atPath: folder + "/s.txt"))
    }
}

/// A location file's JSON with `engine` as its engine settings.
func engineJSON(_ engine: String, radius: String = "1.5", center: String = #""-0.5", "0""#, iterations: Int = 100)
    -> Data
{
    Data(
        #"{"family": "mandelbrot", "center": [\#(center)], "radius": "\#(radius)", "maxIterations": \#(iterations), "engine": \#(engine)}"#
            .utf8)
}

extension LocationFileTests {
    @Suite("Engine settings in a location file: the engine's types, checked when read")
    struct EngineSettingsTests {
        typealias Engine = LocationFile.EngineSettings

        func decode(_ engine: String) throws(FileError) -> Engine? {
            try LocationFile.decode(engineJSON(engine), path: "e.json").engine
        }

        @Test(
            "each value of each field decodes from its raw value and encodes to it",
            arguments: [
                ArithmeticPath.allCases.map { ("path", $0.rawValue, Engine(path: $0)) },
                GlitchMode.allCases.map { ("glitches", $0.rawValue, Engine(glitches: $0)) },
                ReferencePlacement.allCases.map { ("reference", $0.rawValue, Engine(reference: $0)) },
                DeltaType.allCases.map { ("delta", $0.rawValue, Engine(delta: $0)) },
            ].joined().map { $0 })
        func eachValue(_ field: String, _ raw: String, _ expected: Engine) throws {
            #expect(try decode(#"{"\#(field)": "\#(raw)"}"#) == expected)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(String(decoding: try encoder.encode(expected), as: UTF8.self) == #"{"\#(field)":"\#(raw)"}"#)
        }

        @Test(
            "the JSON spelling: double-double, floatexp, probe; absent fields stay absent; a round trip keeps every field"
        )
        func roundTrip() throws {
            let engine = Engine(
                path: .perturbation, glitches: .detect, reference: .probe, delta: .floatExp, bla: false,
                blaEpsilon: 0.25,
                precisionPasses: false, coarseFirstPass: false, orbit: .streamed)
            var file = try LocationFile.decode(engineJSON("{}"), path: "e.json")
            #expect(file.engine == Engine())
            file.engine = engine
            let json = file.jsonString()
            #expect(
                json.contains(
                    #""engine":{"bla":false,"blaEpsilon":0.25,"coarseFirstPass":false,"delta":"floatexp","glitches":"detect","#
                        + #""orbit":"streamed","path":"perturbation","#
                        + #""precisionPasses":false,"reference":"probe"}"#), "\(json)")
            #expect(try LocationFile.decode(Data(json.utf8), path: "e.json") == file)
            #expect(try LocationFile.decode(Data(file.prettyJSONString().utf8), path: "e.json") == file)
            file.engine = Engine(path: .doubleDouble, delta: .doubleDouble)
            #expect(
                file.jsonString().contains(#""engine":{"delta":"double-double","path":"double-double"}"#),
                "\(file.jsonString())")
            #expect(try LocationFile.decode(Data(file.jsonString().utf8), path: "e.json") == file)
            // The spelling is the raw value, exactly.
            #expect(
                try decode(#"{"path": "double-double", "delta": "floatexp"}"#)
                    == Engine(path: .doubleDouble, delta: .floatExp))
            #expect(try decode(#"{"path": null}"#) == Engine())
            #expect(try decode(#"{"orbit": "auto"}"#) == Engine(orbit: .automatic))
        }

        @Test(
            "an unknown value is refused in one line naming the field, the value and the accepted values",
            arguments: [
                ("path", ArithmeticPath.allCases.map(\.rawValue)), ("glitches", GlitchMode.allCases.map(\.rawValue)),
                ("reference", ReferencePlacement.allCases.map(\.rawValue)),
                ("delta", DeltaType.allCases.map(\.rawValue)), ("orbit", OrbitResidency.allCases.map(\.rawValue)),
            ])
        func unknownValue(_ field: String, _ accepted: [String]) throws {
            let reason = "engine.\(field): 'foo' is not one of \(accepted.joined(separator: ", "))"
            #expect(throws: FileError.malformed(path: "e.json", reason: reason)) {
                try decode(#"{"\#(field)": "foo"}"#)
            }
            // Spelled otherwise than the raw value: refused too (the spelling is exact).
            let shouted = accepted[0].uppercased()
            #expect(
                throws: FileError.malformed(
                    path: "e.json",
                    reason: "engine.\(field): '\(shouted)' is not one of \(accepted.joined(separator: ", "))")
            ) {
                try decode(#"{"\#(field)": "\#(shouted)"}"#)
            }
        }

        @Test("the message in full, through the reader and the error's own description")
        func message() throws {
            let delta = DeltaType.allCases.map(\.rawValue).joined(separator: ", ")
            #expect(delta.hasPrefix("double, floatexp, double-double"))
            let error = FathomError.unknownEngineValue(
                field: "engine.delta", value: "foo", accepted: DeltaType.allCases.map(\.rawValue))
            #expect(error.description == "engine.delta: 'foo' is not one of \(delta)")
            do {
                _ = try LocationFile.decode(engineJSON(#"{"delta": "foo"}"#), path: "bad.json")
                Issue.record("an unknown delta type was read")
            } catch {
                #expect(
                    error.description
                        == "'bad.json' is not a valid location file: engine.delta: 'foo' is not one of \(delta)")
            }
            // A value that would break the line, or run on, is shown escaped and cut.
            #expect(
                throws: FileError.malformed(
                    path: "e.json", reason: #"engine.glitches: 'a\nb' is not one of rebase, detect"#)
            ) {
                try decode(#"{"glitches": "a\nb"}"#)
            }
            let long = String(repeating: "x", count: 500)
            #expect(
                throws: FileError.malformed(
                    path: "e.json",
                    reason: "engine.glitches: '\(String(repeating: "x", count: 57))...' is not one of rebase, detect")
            ) {
                try decode(#"{"glitches": "\#(long)"}"#)
            }
            // The wrong type, and a BLA epsilon outside (0, 1).
            #expect(throws: FileError.malformed(path: "e.json", reason: "field 'engine.delta' has the wrong type")) {
                try decode(#"{"delta": 3}"#)
            }
            #expect(
                throws: FileError.malformed(path: "e.json", reason: "engine.blaEpsilon: 2.0 is not a number in (0, 1)")
            ) {
                try decode(#"{"blaEpsilon": 2}"#)
            }
            var settings = PerturbationSettings()
            #expect(throws: FathomError.badBLAEpsilon(field: "engine.blaEpsilon", value: 0)) {
                try Engine(blaEpsilon: 0).apply(to: &settings)
            }
        }

        @Test("apply lays the given fields over render settings and leaves the others")
        func apply() throws {
            var settings = RenderSettings(width: 8, height: 8, path: .double)
            settings.perturbation.glitchMode = .detect
            settings.perturbation.usesApproximation = false
            try Engine().apply(to: &settings)
            #expect(
                settings.path == .double && settings.perturbation.glitchMode == .detect
                    && !settings.perturbation.usesApproximation)
            try Engine(
                path: .doubleDouble, reference: .probe, delta: .floatExp, bla: true, blaEpsilon: 0.5,
                precisionPasses: false, coarseFirstPass: false
            ).apply(to: &settings)
            #expect(settings.path == .doubleDouble)
            #expect(settings.perturbation.glitchMode == .detect)
            #expect(settings.perturbation.placement == .probe)
            #expect(settings.perturbation.deltaType == .floatExp)
            #expect(
                settings.perturbation.usesApproximation && settings.perturbation.blaEpsilon == 0.5
                    && !settings.perturbation.settlesPixelsAtRisk && !settings.perturbation.coarseFirstPass)
            try Engine(orbit: .decoded).apply(to: &settings)
            #expect(settings.perturbation.orbitResidency == .decoded)
            try Engine(glitches: .rebase).apply(to: &settings)
            #expect(settings.perturbation.glitchMode == .rebase && settings.path == .doubleDouble)
        }

        @Test("ImageRender.render honours the file's arithmetic path: double-double forced on a shallow view")
        func renderPath() throws {
            let folder = try makeFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let plain = try LocationFile.decode(engineJSON("{}"), path: "a.json")
            let direct = try ImageRender.render(
                plain, settings: RenderSettings(width: 32, height: 32), to: folder + "/a.png")
            #expect(direct.report.path == .double)
            let forced = try LocationFile.decode(engineJSON(#"{"path": "double-double"}"#), path: "b.json")
            // The file's path wins over the settings' own.
            let result = try ImageRender.render(
                forced, settings: RenderSettings(width: 32, height: 32, path: .double), to: folder + "/b.png")
            #expect(result.report.path == .doubleDouble)
            let stored = try LocationFile.read(path: folder + "/b.png")
            #expect(stored.render?.path == "double-double")
            #expect(stored.engine == Engine(path: .doubleDouble))
            // A file without engine settings leaves the settings' path.
            let settingsPath = try ImageRender.render(
                plain, settings: RenderSettings(width: 32, height: 32, path: .doubleDouble), to: folder + "/c.png")
            #expect(settingsPath.report.path == .doubleDouble)
        }

        @Test("ImageRender.render honours the file's perturbation settings: detect mode, FloatExp deltas")
        func renderPerturbation() throws {
            let folder = try makeFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let view = (center: #""-0.7436438870371587", "0.1318259042053119""#, radius: "1e-6", iterations: 400)
            let plain = try LocationFile.decode(
                engineJSON(
                    #"{"path": "perturbation"}"#, radius: view.radius, center: view.center, iterations: view.iterations),
                path: "p.json")
            let rebase = try ImageRender.render(
                plain, settings: RenderSettings(width: 24, height: 16), to: folder + "/p.png")
            #expect(rebase.report.path == .perturbation)
            #expect(rebase.report.perturbation?.glitchMode == .rebase)
            #expect(rebase.report.perturbation?.deltaType == .double)
            let file = try LocationFile.decode(
                engineJSON(
                    #"{"path": "perturbation", "glitches": "detect", "delta": "floatexp"}"#,
                    radius: view.radius, center: view.center, iterations: view.iterations), path: "d.json")
            let result = try ImageRender.render(
                file, settings: RenderSettings(width: 24, height: 16), to: folder + "/d.png")
            #expect(result.report.path == .perturbation)
            #expect(result.report.perturbation?.glitchMode == .detect)
            #expect(result.report.perturbation?.deltaType == .floatExp)
            let stored = try LocationFile.read(path: folder + "/d.png")
            #expect(stored.render?.glitchMode == "detect" && stored.render?.deltaType == "floatexp")
        }
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
        // Times no clock gives: no trap converting them to an Int.
        for absurd in [Double.infinity, .nan, 1e300, -.infinity] {
            #expect(ProgressMeter.duration(absurd) == "-:--")
        }
        #expect(ProgressMeter.line(fraction: .nan, elapsed: .infinity) == "  0%  -:-- elapsed")
        let start = Date(timeIntervalSince1970: 0)
        let meter = ProgressMeter(start: start, interval: 1)
        #expect(meter.update(0.1, now: start.addingTimeInterval(2)) == " 10%  0:02 elapsed, ETA 0:18")
        #expect(meter.update(0.2, now: start.addingTimeInterval(2.5)) == nil)  // within the interval
        #expect(meter.update(1, now: start.addingTimeInterval(2.6)) == "100%  0:03 elapsed")  // the end always shows
    }
}
