import Foundation
import FractalImaging
import Testing

@Suite("PNG files")
struct PNGTests {
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "fathom-png-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("pixels and tEXt chunks survive a write and a read through libpng")
    func roundTrip() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pixels = [UInt8](repeating: 0, count: 7 * 5 * 3)
        for i in pixels.indices { pixels[i] = UInt8((i * 37) % 256) }
        let image = RGBImage(width: 7, height: 5, pixels: pixels)
        let path = folder + "/a.png"
        let json = "{\"center\":[\"-1.75\",\"0\"],\"radius\":\"1e-1000\"}"
        try PNGWriter.write(image, to: path, text: [("fathom-location", json), ("Software", "Fathom")])
        #expect(try PNGReader.read(path: path) == image)
        let chunks = try PNGReader.textChunks(path: path)
        #expect(chunks.map(\.0) == ["fathom-location", "Software"])
        #expect(chunks.first?.1 == json)
        // Only the file itself is left: the temporary file was renamed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["a.png"])
    }

    @Test("a write into a missing folder throws and leaves no file")
    func missingFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = RGBImage(width: 1, height: 1, pixels: [1, 2, 3])
        #expect(throws: ImageWriteError.self) { try PNGWriter.write(image, to: folder + "/missing/a.png") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("an existing file is replaced whole, never left partial")
    func replaces() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/a.png"
        try PNGWriter.write(RGBImage(width: 1, height: 1, pixels: [1, 2, 3]), to: path)
        try PNGWriter.write(RGBImage(width: 2, height: 1, pixels: [4, 5, 6, 7, 8, 9]), to: path)
        #expect(try PNGReader.read(path: path).pixels == [4, 5, 6, 7, 8, 9])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["a.png"])
    }
}
