import Foundation
import FractalEngine
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
        let image = try RGBImage(width: 7, height: 5, pixels: pixels)
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

    @Test("an image encoded in memory is the file's bytes exactly, 8 and 16 bits, with its text")
    func inMemory() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pixels = [UInt8](repeating: 0, count: 9 * 4 * 6)
        for i in pixels.indices { pixels[i] = UInt8((i * 53 + 11) % 256) }
        for image in [
            try RGBImage(width: 9, height: 4, bitDepth: .sixteen, pixels: pixels),
            try RGBImage(width: 18, height: 4, pixels: pixels),
            // Noise: a PNG of some 180 KB, past the memory buffer's first 64 KB.
            try RGBImage(width: 300, height: 200, pixels: (0..<180_000).map { _ in UInt8.random(in: 0...255) }),
        ] {
            let text = [("fathom-location", "{\"radius\":\"1e-1000\"}"), ("Software", "Fathom")]
            let data = try PNGWriter.encode(image, text: text)
            let path = folder + "/a.png"
            try PNGWriter.write(image, to: path, text: text)
            #expect(data == (try Data(contentsOf: URL(fileURLWithPath: path))), "\(image.bitDepth)")
            #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            #expect(try PNGReader.read(path: path) == image)
            if image.width == 300 { #expect(data.count > 65536) }
        }
        // A keyword libpng refuses (empty) is an error, not a trap or a PNG without it.
        let small = try RGBImage(width: 1, height: 1, pixels: [1, 2, 3])
        #expect(throws: ImageEncodeError.self) { try PNGWriter.encode(small, text: [("", "x")]) }
    }

    @Test("a write into a missing folder throws and leaves no file")
    func missingFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try RGBImage(width: 1, height: 1, pixels: [1, 2, 3])
        #expect(throws: OutputError.self) { try PNGWriter.write(image, to: folder + "/missing/a.png") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("an existing file is replaced whole, never left partial")
    func replaces() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/a.png"
        try PNGWriter.write(try RGBImage(width: 1, height: 1, pixels: [1, 2, 3]), to: path)
        try PNGWriter.write(try RGBImage(width: 2, height: 1, pixels: [4, 5, 6, 7, 8, 9]), to: path)
        #expect(try PNGReader.read(path: path).pixels == [4, 5, 6, 7, 8, 9])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["a.png"])
    }

    @Test("16-bit samples survive a write and a read; the colouring's 16-bit words are the palette's")
    func sixteenBit() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var pixels = [UInt8](repeating: 0, count: 3 * 2 * 6)
        for i in pixels.indices { pixels[i] = UInt8((i * 101 + 7) % 256) }
        let image = try RGBImage(width: 3, height: 2, bitDepth: .sixteen, pixels: pixels)
        let path = folder + "/a.png"
        try PNGWriter.write(image, to: path)
        let back = try PNGReader.read(path: path)
        #expect(back.bitDepth == .sixteen)
        #expect(back == image)

        var field = IterationField(width: 2, height: 1, maxIterations: 100)
        field.n2[0] = 10
        field.nBig[0] = 12
        field.smooth[0] = 10.3
        let settings = ColorSettings().resolved(for: field)
        let deep = try Colorizer.image(field, settings: settings, bitDepth: .sixteen)
        let expected = Colorizer.color(field[0, 0], rootCount: 0, settings: settings).words
        #expect(deep.sample(x: 0, y: 0) == expected)
        #expect(deep.sample(x: 1, y: 0) == settings.interior.words)
        // The 8-bit image is the 16-bit one rounded.
        let shallow = try Colorizer.image(field, settings: settings)
        let (r, g, b) = shallow[0, 0]
        #expect(
            abs(Int(r) * 257 - Int(expected.0)) <= 129 && abs(Int(g) * 257 - Int(expected.1)) <= 129
                && abs(Int(b) * 257 - Int(expected.2)) <= 129)
    }
}
