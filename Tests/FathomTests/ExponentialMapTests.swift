import Fathom
import Foundation
import FractalNumerics
import Testing

@Suite("Exponential maps")
struct ExponentialMapTests {
    /// Seahorse valley at 1e-20: the map's rows take Double, double-double and perturbation.
    static let file: LocationFile = {
        var f = LocationFile(
            location: Location(
                centerRe: "-0.743643887037158704752191506114774", centerIm: "0.131825904205311970493132056385139",
                radius: "1e-20", maxIterations: 3000))
        f.width = 32
        return f
    }()

    @Test("rows: square pixels from radius 2 in to the location's radius, in contiguous bands")
    func geometry() throws {
        let map = try ExponentialMap(width: 64, log2Radius: Math.log2(1e-20))
        #expect(map.height == Int((64 * Math.log(2e20) / (2 * Double.pi)).rounded(.up)))
        #expect(Swift.abs(map.log2Radius(row: 0) - (1 - 0.5 * map.log2RowStep)) < 1e-15)
        // The last row lies within one row of the location's radius, the first within one of 2.
        #expect(Swift.abs(map.log2Radius(row: map.height - 1) - Math.log2(1e-20)) < map.log2RowStep)
        let bands = map.bands()
        #expect(bands.first?.lowerBound == 0 && bands.last?.upperBound == map.height)
        #expect(zip(bands, bands.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        // Each pixel's point: its row's radius and its column's angle, in the band's viewport.
        let location = try Self.file.location()
        for rows in [bands[0], bands[bands.count - 1]] {
            let viewport = try Viewport(location: location, map: map, rows: rows)
            for (x, y) in [(0, 0), (17, rows.count / 2), (63, rows.count - 1)] {
                let p = viewport.exactPoint(x: x, y: y)
                let dx = (p.re - viewport.center.re).floatExpValue, dy = (p.im - viewport.center.im).floatExpValue
                let log2r = (dx * dx + dy * dy).log2Magnitude / 2
                #expect(Swift.abs(log2r - map.log2Radius(row: rows.lowerBound + y)) < 1e-12)
                let unit = FloatExp(significand: 1, exponent: -Int(log2r.rounded()))
                let angle = Math.atan2((dy * unit).doubleValue, (dx * unit).doubleValue)
                let expected = 2 * Double.pi * (Double(x) + 0.5) / 64
                #expect(Swift.abs(Math.cos(angle) - Math.cos(expected)) < 1e-12)
                #expect(Swift.abs(Math.sin(angle) - Math.sin(expected)) < 1e-12)
            }
        }
        #expect(throws: LocationError.self) { try ExponentialMap(width: 64, log2Radius: 1) }
        #expect(throws: LocationError.self) { try ExponentialMap(width: 3, log2Radius: -10) }
        #expect(throws: LocationError.self) { try ExponentialMap(width: 4096, log2Radius: -1e12) }
    }

    @Test("every path's rows against direct MPFR iteration at each pixel's point")
    func againstMPFR() throws {
        let render = try ExponentialMapRender(Self.file, width: 128)
        var fields: [(Range<Int>, IterationField)] = []
        let report = try render.render(settings: RenderSettings(width: 128, height: 1, threads: 2)) {
            fields.append(($0, $1.field))
        }
        #expect(Set(report.paths.map(\.path)) == ["double", "double-double", "perturbation"])
        #expect(report.bands == render.map.bands().count && report.bands > 3)
        #expect(report.orbitsComputed == 1)
        var checked = 0
        for (rows, field) in fields {
            let viewport = try Viewport(location: render.location, map: render.map, rows: rows)
            let bits = viewport.precision.bits
            let low = MPFREscape(precision: Precision(bits: bits)),
                high = MPFREscape(precision: Precision(bits: 2 * bits + 64))
            for y in stride(from: rows.count % 10, to: rows.count, by: 10) {
                for x in [3, 50, 101] {
                    let a = low.iterate(
                        pixelX: x, pixelY: y, viewport: viewport, family: .mandelbrot, maxIterations: 3000)
                    let b = high.iterate(
                        pixelX: x, pixelY: y, viewport: viewport, family: .mandelbrot, maxIterations: 3000)
                    // Unstable pixels (the two precisions disagree) are not checked: the oracle's rule.
                    guard a.n2 == b.n2, a.nBig == b.nBig, a.nBig == 0 || Swift.abs(a.smooth - b.smooth) < 1e-6 else {
                        continue
                    }
                    let i = y * 128 + x
                    #expect(field.n2[i] == b.n2 && field.nBig[i] == b.nBig, "row \(rows.lowerBound + y), column \(x)")
                    if b.nBig != 0 { #expect(Swift.abs(field.smooth[i] - b.smooth) < 1e-6) }
                    checked += 1
                }
            }
        }
        #expect(checked > 200)
    }

    @Test("the EXR for zoomasm: N + NF - IterationsBias is the smooth count, read back through OpenEXR's library")
    func exr() throws {
        #expect(EXRStream.unavailableReason == nil, "make deps installs libopenexr-dev")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fathom-exr-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("map.exr").path
        let render = try ExponentialMapRender(Self.file, width: 128)
        let outputs = try OutputSet([path])
        let stream = try EXRStream(
            outputs, at: 0, width: 128, height: render.map.height, maxIterations: 3000, location: "{}")
        var smooth: [Double] = [], nBig: [UInt32] = []
        _ = try render.render(settings: RenderSettings(width: 128, height: 1, threads: 2)) {
            try stream.append($1.field)
            smooth += $1.field.smooth
            nBig += $1.field.nBig
        }
        try stream.finish()
        try outputs.commit()
        let n = try EXRStream.read(path, channel: "N", rows: 0..<render.map.height)
        let nf = try EXRStream.read(path, channel: "NF", rows: 0..<render.map.height)
        #expect(n.width == 128 && n.height == render.map.height && n.words.count == nBig.count)
        #expect(try EXRStream.readInt(path, attribute: "IterationsBias") == 1024)
        #expect(try EXRStream.readInt(path, attribute: "Iterations") == 3000)
        var escaped = 0
        for i in nBig.indices {
            if nBig[i] == 0 {
                #expect(n.words[i] == UInt32.max && nf.words[i] == 0)
            } else {
                let value = Double(n.words[i]) + Double(Float(bitPattern: nf.words[i])) - 1024
                #expect(Swift.abs(value - smooth[i]) < 1e-6 * Swift.max(1, smooth[i]))
                escaped += 1
            }
        }
        #expect(escaped > 10_000 && escaped < nBig.count)
    }

    @Test("DEX/DEY: each pixel's distance estimate in its row's pixels, against direct iteration at its point")
    func distanceChannels() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fathom-exr-de-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("map.exr").path
        let render = try ExponentialMapRender(Self.file, width: 128)
        let map = render.map
        let outputs = try OutputSet([path])
        let stream = try EXRStream(
            outputs, at: 0, width: 128, height: map.height, maxIterations: 3000, location: "{}", distance: true)
        var settings = RenderSettings(width: 128, height: 1, threads: 2)
        settings.extras = ExtrasRequest(derivative: true)
        var nBig: [UInt32] = [], bandOf: [Range<Int>] = []
        let report = try render.render(settings: settings) {
            try stream.append($1.field)
            nBig += $1.field.nBig
            bandOf += Array(repeating: $0, count: $0.count)
        }
        try stream.finish()
        try outputs.commit()
        #expect(Set(report.paths.map(\.path)) == ["double", "double-double", "perturbation"])
        let dex = try EXRStream.read(path, channel: "DEX", rows: 0..<map.height).words.map(Float.init(bitPattern:))
        let dey = try EXRStream.read(path, channel: "DEY", rows: 0..<map.height).words.map(Float.init(bitPattern:))
        #expect(dex.count == nBig.count)
        for i in nBig.indices where nBig[i] == 0 { #expect(dex[i] == 0 && dey[i] == 0) }
        // The estimate |z| ln|z| / |dz/dc| at escape (z in MPFR, dz/dc in Double from it), in
        // pixels of the row (2 pi / W of its radius), as the vector conj(z / (dz/dc)): image axes.
        // The estimate is ill-conditioned where orbits pass near 0, so 1e-2 (ExtrasTests' bound).
        var checked = 0
        for y in stride(from: 5, to: map.height, by: 19) {
            let rows = bandOf[y]
            let viewport = try Viewport(location: render.location, map: map, rows: rows)
            for x in [9, 70, 113] where nBig[y * 128 + x] != 0 {
                let c = viewport.exactPoint(x: x, y: y - rows.lowerBound)
                var z = BigComplex(precision: viewport.precision)
                var dz = (re: 0.0, im: 0.0)
                var escaped = false
                var count = 0
                for _ in 0..<3000 {
                    count += 1
                    let zd = z.doubleValue
                    dz = (2 * (zd.re * dz.re - zd.im * dz.im) + 1, 2 * (zd.re * dz.im + zd.im * dz.re))
                    z = BigComplex(z.re * z.re - z.im * z.im + c.re, (z.re * z.im).timesPowerOfTwo(1) + c.im)
                    let w = z.doubleValue
                    if w.re * w.re + w.im * w.im > Escape.radiusSquaredBig {
                        escaped = true
                        break
                    }
                }
                // Only where the engine's count is the direct one (ExtrasTests' rule: near the
                // boundary a Double orbit and an MPFR one part, and so do their derivatives).
                guard escaped, UInt32(count) == nBig[y * 128 + x] else { continue }
                let w = z.doubleValue
                let absZ = (w.re * w.re + w.im * w.im).squareRoot(), absD = (dz.re * dz.re + dz.im * dz.im).squareRoot()
                let pixel = Math.exp2(map.log2Radius(row: y) + map.log2AngleStep)
                let expected = absZ * Math.log(absZ) / absD / pixel
                // A point that close to the set (under 1e-3 pixels, or 1e-12 absolute on the
                // Double rows' orbits, which are the exact orbits of points 1e-16 away) has no
                // estimate to compare: both are the boundary there.
                guard expected > 1e-3 && expected * pixel > 1e-12 else { continue }
                // z / dz = z conj(dz) / |dz|^2; conjugated: (re, -im).
                let ur = w.re * dz.re + w.im * dz.im, ui = w.im * dz.re - w.re * dz.im,
                    u = (ur * ur + ui * ui).squareRoot()
                let i = y * 128 + x
                let got = (Double(dex[i]) * Double(dex[i]) + Double(dey[i]) * Double(dey[i])).squareRoot()
                #expect(Swift.abs(got / expected - 1) < 1e-2, "row \(y), column \(x): \(got) vs \(expected)")
                #expect((Double(dex[i]) * ur / u - Double(dey[i]) * ui / u) / got > 0.999, "row \(y), column \(x)")
                checked += 1
            }
        }
        #expect(checked > 40)
    }

    @Test("--kf-frames: KF's files of one octave, file k's row y at radius rho 2^(k-1) hypot(W,H)/H 2^(-y/H)")
    func keyframeFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fathom-kf-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let loc = try Self.file.location()
        let run = try FathomProcess.run(
            [
                "expmap", "--center", "\(loc.centerRe),\(loc.centerIm)", "--radius", loc.radius, "--iterations", "3000",
                "--width", "64", "--kf-frames", "kf", "--distance", "--quiet",
            ], in: folder)
        #expect(run.code == 0, "\(run.stderr)")
        // H = ceil(64 ln 2 / (2 pi)) = 8; files from rho = 1e-20 until rho 2^(k-1) >= 2: 69.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/kf").sorted()
        #expect(names.count == 69 && names.first == "00001.exr" && names.last == "00069.exr")
        let precision = Precision(bits: 192)
        let center = try BigComplex(parsingRe: loc.centerRe, im: loc.centerIm, precision: precision)
        let mpfr = MPFREscape(precision: precision)
        var checked = 0
        for k in [1, 30, 69] {
            let path = folder + "/kf/" + names[k - 1]
            let n = try EXRStream.read(path, channel: "N", rows: 0..<8)
            let nf = try EXRStream.read(path, channel: "NF", rows: 0..<8)
            #expect(n.width == 64 && n.height == 8)
            for y in [0, 3, 7] {
                for x in [0, 16, 41] {
                    // The point from KF's formula, in Double (offsets of 1e-20 and up), then MPFR.
                    func smooth(_ scale: Double) -> PixelResult {
                        let r = 1e-20 * Math.exp2(Double(k - 1) - Double(y) / 8) * (64.0 * 64 + 64).squareRoot() / 8
                        let angle = 2 * Double.pi * Double(x) / 64
                        let c = BigComplex(
                            center.re + BigFloat(r * scale * Math.cos(angle), precision: precision),
                            center.im + BigFloat(r * scale * Math.sin(angle), precision: precision))
                        return mpfr.iterate(z0: BigComplex(precision: precision), c: c, power: 2, maxIterations: 3000)
                    }
                    let a = smooth(1), b = smooth(1 + 1e-12)
                    // Pixels where a change of 1e-12 in the point moves the count are not compared.
                    guard a.nBig == b.nBig, a.nBig == 0 || Swift.abs(a.smooth - b.smooth) < 1e-7 else { continue }
                    let i = y * 64 + x
                    if a.nBig == 0 {
                        #expect(n.words[i] == UInt32.max, "file \(k) row \(y) column \(x)")
                    } else {
                        let value = Double(n.words[i]) + Double(Float(bitPattern: nf.words[i])) - 1024
                        #expect(Swift.abs(value - a.smooth) < 1e-5, "file \(k) row \(y) column \(x)")
                    }
                    checked += 1
                }
            }
            let dex = try EXRStream.read(path, channel: "DEX", rows: 0..<8).words.map(Float.init(bitPattern:))
            let dey = try EXRStream.read(path, channel: "DEY", rows: 0..<8).words.map(Float.init(bitPattern:))
            // Every escaped pixel has a distance vector; the others 0 (file 1 lies inside: none escape).
            for i in 0..<(64 * 8) {
                if n.words[i] == UInt32.max {
                    #expect(dex[i] == 0 && dey[i] == 0)
                } else {
                    #expect(dex[i] != 0 || dey[i] != 0, "file \(k), pixel \(i)")
                }
            }
        }
        #expect(checked > 20)
        let mixed = try FathomProcess.run(
            ["expmap", "--preset", "e50", "--kf-frames", "x", "--npy", "x.npy"], in: folder)
        #expect(mixed.code == 64 && mixed.stderr.contains("--kf-frames"))
    }

    @Test("the streamed NPY file: the bands' rows in order, the same bytes on 1 and 2 threads")
    func streamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fathom-expmap-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let render = try ExponentialMapRender(Self.file, width: 128)
        var bytes: [Data] = []
        for threads in [1, 2] {
            let path = folder.appendingPathComponent("map\(threads).npy").path
            let outputs = try OutputSet([path])
            let stream = try NPYStream(outputs, at: 0, width: 128, height: render.map.height)
            var rows = Data()
            _ = try render.render(settings: RenderSettings(width: 128, height: 1, threads: threads)) {
                try stream.append($1.field)
                rows += NPYWriter.rows($1.field)
            }
            try stream.finish()
            #expect(!FileManager.default.fileExists(atPath: path))
            try outputs.commit()
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data == Data(NPYWriter.header(width: 128, height: render.map.height, hasRoots: false)) + rows)
            bytes.append(data)
        }
        #expect(bytes[0] == bytes[1])
    }
}
