import Fathom
import Foundation
import Testing

/// The explorer's preset thumbnails (Sources/FathomCLI/Explore/Page/preset-thumbnails.json,
/// made by Scripts/preset-thumbnails.sh): one for every preset, each a JPEG with the hash of the
/// view it shows (read from its render's location chunk), so a preset that changes fails here
/// until they are made again.
@Suite("The explorer's preset thumbnails")
struct PresetThumbnailTests {
    struct Thumbnail: Decodable {
        let view: String
        let jpeg: String
    }

    /// The view as the script hashes it: family, center, radius, iterations, power, Julia's c
    /// and Newton's polynomial, as `fathom info --json` writes them, joined by "|".
    static func viewText(_ file: LocationFile) -> String {
        [
            file.family.rawValue, file.center.joined(separator: ","), file.radius, "\(file.maxIterations)",
            file.power.map { "\($0)" } ?? "", file.juliaC?.joined(separator: ",") ?? "", file.newton ?? "",
        ].joined(separator: "|")
    }

    /// FNV-1a, 64 bits, of the text's UTF-8 bytes, as 16 hex digits.
    static func fnv(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("every preset has its thumbnail: a JPEG of its own view")
    func everyPreset() throws {
        let url = repositoryFile("Sources/FathomCLI/Explore/Page/preset-thumbnails.json")
        let table = try JSONDecoder().decode([String: Thumbnail].self, from: Data(contentsOf: url))
        #expect(Set(table.keys) == Set(Presets.all.map(\.name)))
        let prefix = "data:image/jpeg;base64,"
        for preset in Presets.all {
            let thumbnail = try #require(table[preset.name])
            #expect(thumbnail.jpeg.hasPrefix(prefix))
            let jpeg = try #require(Data(base64Encoded: String(thumbnail.jpeg.dropFirst(prefix.count))))
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]) && jpeg.count < 16 << 10, "\(preset.name)")
            #expect(
                thumbnail.view == Self.fnv(Self.viewText(LocationFile(location: preset.location))),
                "\(preset.name): its thumbnail shows another view (run Scripts/preset-thumbnails.sh)")
        }
    }

    @Test("the hash is FNV-1a's: known values")
    func knownHashes() {
        // FNV-1a 64 of "" and "a" (the algorithm's published test vectors).
        #expect(Self.fnv("") == "cbf29ce484222325")
        #expect(Self.fnv("a") == "af63dc4c8601ec8c")
    }
}
