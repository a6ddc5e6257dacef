import Fathom
import Foundation
import FractalNumerics
import Testing

@Suite("Frame sequences")
struct SequenceTests {
    static func e50(iterations: Int) -> LocationFile {
        var file = LocationFile(location: Presets.named("e50")!.location)
        file.maxIterations = iterations
        return file
    }

    @Test("a zoom-out multiplies the radius by the factor a frame from the deep location, center fixed")
    func zoomOutFrames() throws {
        let deep = Self.e50(iterations: 1000)
        let seq = try FrameSequence.zoomOut(from: deep, count: 100, factor: 2)
        #expect(seq.frames.count == 100)
        #expect(seq.frames[0].radius == "2e-50")
        #expect(seq.frames.allSatisfy { $0.center == deep.center })
        let r99 = try BigFloat(parsing: seq.frames[99].radius, precision: Precision(bits: 64)).doubleValue
        #expect(Swift.abs(r99 / (2e-50 * Math.pow(2, 99)) - 1) < 1e-15)
        #expect(throws: FathomError.badFrameCount(0)) { try FrameSequence.zoomOut(from: deep, count: 0, factor: 2) }
        #expect(throws: FathomError.badFactor(0.5)) { try FrameSequence.zoomOut(from: deep, count: 10, factor: 0.5) }
    }

    @Test("between keyframes: radius geometric, center in proportion to the radius, the last frame the last keyframe")
    func keyframes() throws {
        let a = LocationFile(location: Location(centerRe: "-0.75", centerIm: "0.1", radius: "0.05", maxIterations: 500))
        var b = LocationFile(
            location: Location(
                centerRe: "-0.743643887037158704752191506114774", centerIm: "0.131825904205311970493132056385139",
                radius: "1e-25", maxIterations: 3000))
        b.color = ColorSettings(palette: .hot)
        let seq = try FrameSequence.between([a, b], perSegment: 8)
        #expect(seq.frames.count == 9)
        #expect(
            seq.frames[8].center == b.center && seq.frames[8].radius == b.radius && seq.frames[8].color?.palette == .hot
        )
        #expect(seq.frames[0].center == a.center && seq.frames[0].radius == a.radius)
        let p = Precision(bits: 256)
        for k in 1..<8 {
            let t = Double(k) / 8
            let f = seq.frames[k]
            // Palette and family snap to the first keyframe; iterations go linearly.
            #expect(f.color == nil && f.family == .mandelbrot)
            #expect(f.maxIterations == Int((500 + 2500 * t).rounded()))
            let r = try BigFloat(parsing: f.radius, precision: p)
            let expected = Math.exp((1 - t) * Math.log(0.05) + t * Math.log(1e-25))
            #expect(Swift.abs(r.doubleValue / expected - 1) < 1e-12, "frame \(k)")
            // c - cB = (cA - cB) (r - rB) / (rA - rB), to well below a pixel (r / 1000).
            let rb = try BigFloat(parsing: "1e-25", precision: p), ra = try BigFloat(parsing: "0.05", precision: p)
            let w = (r - rb) / (ra - rb)
            for (got, ca, cb) in [(f.center[0], a.center[0], b.center[0]), (f.center[1], a.center[1], b.center[1])] {
                let bb = try BigFloat(parsing: cb, precision: p)
                let want = bb + (try BigFloat(parsing: ca, precision: p) - bb) * w
                let off = (try BigFloat(parsing: got, precision: p) - want).magnitude
                #expect(off < r.timesPowerOfTwo(-10), "frame \(k): \(got)")
            }
        }
        #expect(throws: FathomError.badFrameCount(1)) { try FrameSequence.between([a], perSegment: 8) }
        #expect(throws: FathomError.badFrameCount(Int.max / 2 + 1)) {
            try FrameSequence.between([a, b, a], perSegment: Int.max / 2 + 1)
        }
    }

    @Test("a slice renders byte-identical frames to the full run, from one reference orbit")
    func slice() throws {
        // The flake zoomed out from 1e-50 (every pixel escapes within 5,000 iterations).
        var deep = LocationFile(location: Presets.named("flake")!.location)
        deep.radius = "1e-50"
        deep.maxIterations = 5000
        let seq = try FrameSequence.zoomOut(from: deep, count: 8, factor: 8)
        let full = try makeFolder(), part = try makeFolder()
        defer {
            try? FileManager.default.removeItem(atPath: full)
            try? FileManager.default.removeItem(atPath: part)
        }
        let settings = RenderSettings(width: 32, height: 18)
        let all = try seq.render(0...7, into: full, settings: settings)
        // One orbit: the frames and the colour preview of the deepest frame reuse it.
        #expect(all.framesRendered == 8 && all.orbitsComputed == 1 && all.orbitsReused == 9)
        let some = try seq.render(3...4, into: part, settings: settings)
        #expect(some.framesRendered == 2 && some.orbitsComputed == 1)
        for k in 3...4 {
            let name = FrameSequence.fileName(frame: k)
            let a = FileManager.default.contents(atPath: full + "/" + name),
                b = FileManager.default.contents(atPath: part + "/" + name)
            #expect(a != nil && a == b, "frame \(k)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: part).sorted() == [
                "frame-00003.png", "frame-00004.png",
            ])
        // Automatic colour: one histogram, from the deepest frame, for every frame.
        let colors = try (0...7).map {
            try LocationFile.read(path: full + "/" + FrameSequence.fileName(frame: $0)).color
        }
        #expect(colors.allSatisfy { $0?.scale == .histogram } && Set(colors.map { $0?.quantiles ?? [] }).count == 1)
        // Not one flat colour, and the frames differ.
        let f3 = try PNGReader.read(path: full + "/frame-00003.png"),
            f4 = try PNGReader.read(path: full + "/frame-00004.png")
        #expect(Set(f3.pixels).count > 3 && f3 != f4)
        #expect(throws: FathomError.badFrameRange(6, 8, 8)) { try seq.render(6...8, into: part, settings: settings) }
    }
}
