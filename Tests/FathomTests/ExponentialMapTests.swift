import Fathom
import Foundation
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
