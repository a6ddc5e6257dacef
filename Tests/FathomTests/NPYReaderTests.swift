import Fathom
import Foundation
import Testing

@Suite("Reading an .npy field back")
struct NPYReaderTests {
    static func temporary(_ name: String) -> String {
        NSTemporaryDirectory() + "fathom-npy-\(getpid())-\(name)"
    }

    @Test("a rendered field written as .npy reads back equal, Newton's roots too; recoloured, the same image")
    func roundTrip() throws {
        for (location, width, height) in [
            (Presets.named("seahorse")!.location, 40, 24), (Presets.named("newton")!.location, 30, 20),
            (Presets.named("e50")!.location, 16, 9),
        ] {
            let result = try Renderer.render(
                location: location, settings: RenderSettings(width: width, height: height))
            let path = Self.temporary("\(width)")
            defer { unlink(path) }
            try NPYWriter.write(result.field, to: path)
            let back = try NPYReader.read(path: path, maxIterations: location.maxIterations)
            #expect(back == result.field)
            #expect(back.hasRoots == result.field.hasRoots && back.pixelCount == width * height)
            let settings = ColorSettings(palette: .hot)
            #expect(try Colorizer.image(back, settings: settings) == Colorizer.image(result.field, settings: settings))
            // Without the limit: the largest count in the file.
            let counts = try NPYReader.read(path: path)
            #expect(counts.maxIterations == Int(max(result.field.nBig.max()!, result.field.n2.max()!)))
        }
    }

    @Test("a file that is not Fathom's field is refused with its reason")
    func refusals() throws {
        var field = IterationField(width: 3, height: 2, maxIterations: 10)
        field.nBig[1] = 7
        let good = [UInt8](NPYWriter.data(field))
        let header = Int(good[8]) | Int(good[9]) << 8
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        func replacing(_ bytes: [UInt8], _ a: String, _ b: String) -> [UInt8] {
            let a = Array(a.utf8), b = Array(b.utf8)
            let at = (0...(bytes.count - a.count)).first { Array(bytes[$0..<($0 + a.count)]) == a }!
            return Array(bytes[..<at]) + b + Array(bytes[(at + a.count)...])
        }
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "not a NumPy .npy file"),
            ("text", text("hello, world"), "not a NumPy .npy file"),
            ("truncated", Array(good.dropLast(5)), "bytes of data, where 2 x 3 pixels take 96"),
            ("extra", good + [0], "bytes of data"),
            ("version 2", [good[0]] + good[1..<6] + [2, 0] + good[8...], "NumPy format 2.0"),
            ("header past the end", Array(good[0..<(10 + header / 2)]), "its header runs past the file"),
            ("float32 smooth", replacing(good, "<f8", "<f4"), "its dtype is not Fathom's"),
            ("Fortran order", replacing(good, "False", "True "), "it is in Fortran order"),
        ]
        for (name, bytes, reason) in cases {
            let path = Self.temporary(name.replacingOccurrences(of: " ", with: "-"))
            defer { unlink(path) }
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            do {
                _ = try NPYReader.read(path: path)
                Issue.record("\(name): read")
            } catch {
                #expect(error.description.contains(reason), "\(name): \(error)")
            }
        }
        // A shape past the limits, with a header that says so.
        var huge = [UInt8](NPYWriter.header(width: 40000, height: 2, hasRoots: false))
        huge += [UInt8](repeating: 0, count: 16)
        let path = Self.temporary("huge")
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(huge)))
        #expect(throws: NPYError.self) { try NPYReader.read(path: path) }
        #expect(throws: NPYError.self) { try NPYReader.read(path: NSTemporaryDirectory()) }
    }
}
