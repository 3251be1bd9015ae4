import CVips
import Foundation

/// What the libvips in this process can read and write, and which of its loaders may open files.
///
/// Whether a loader is enabled is read from libvips' own class flags, not from `VipsRuntime`'s
/// bookkeeping, so that `thumbgen doctor` shows what libvips will really do with a file.
public struct VipsCapabilities: Sendable, Equatable {
    /// An input format thumbgen reads, by the loader it needs.
    public enum InputFormat: String, Sendable, CaseIterable {
        case jpeg, png, webp, gif, tiff, heif, jxl

        /// The libvips nickname of the format's file loader (`gifload` is libnsgif's).
        public var loader: String { rawValue + "load" }
    }

    /// One libvips loader, its file, buffer and source variants together (they are enabled
    /// together too), named by the file variant's nickname.
    public struct Loader: Sendable, Equatable {
        /// The input format, for the loaders thumbgen needs; nil for the others.
        public var format: InputFormat?
        /// The nickname, such as `jpegload` or `svgload`.
        public var name: String
        /// Whether this libvips has the loader.
        public var available: Bool
        /// Whether the loader may open files now (thumbgen blocks every loader it does not need).
        public var enabled: Bool
    }

    /// The libvips saver one output format is written with.
    public struct Saver: Sendable, Equatable {
        /// The output format.
        public var format: OutputFormat
        /// The nickname, such as `jpegsave_buffer`.
        public var name: String
        /// Whether this libvips has the saver.
        public var available: Bool
        /// For AVIF only: whether a tiny test image could be encoded, since `heifsave` exists
        /// whenever libheif does, while AV1 needs an encoder plugin libheif may lack.
        public var av1Encoder: Bool?
    }

    /// The libvips version, `major.minor.micro`.
    public var version: String
    /// The seven loaders thumbgen needs, in `InputFormat` order, then every other loader by name.
    public var loaders: [Loader]
    /// One saver per output format, in `OutputFormat` order.
    public var savers: [Saver]
    /// Whether thumbgen's C resampler is used: only where its bytes match this libvips's own
    /// resize (`VipsResampleCheck`).
    public var nativeResample = false
    /// What the resampler check found, in a sentence.
    public var resampler = ""

    /// What thumbgen needs and this libvips lacks, such as `jxlload (jxl input)`; empty when
    /// every input can be read and every output written.
    public var missing: [String] {
        let inputs = loaders.compactMap { loader in
            loader.format.flatMap { loader.available ? nil : "\(loader.name) (\($0.rawValue) input)" }
        }
        let outputs = savers.compactMap { saver -> String? in
            if !saver.available { return "\(saver.name) (\(saver.format.rawValue) output)" }
            return saver.av1Encoder == false ? "\(saver.name) has no AV1 encoder (avif output)" : nil
        }
        return inputs + outputs
    }

    /// Asks libvips, starting it if needed; loaders enabled with `VipsRuntime.start(extraLoaders:)`
    /// show as enabled.
    public static func current() throws(ImagingError) -> VipsCapabilities {
        try VipsRuntime.start()
        let families = Dictionary(grouping: loaderClasses(), by: \.family).values.compactMap { variants in
            variants.min { ($0.nickname.count, $0.nickname) < ($1.nickname.count, $1.nickname) }
        }
        let known = InputFormat.allCases.map { format in
            let found = families.first { $0.nickname == format.loader }
            return Loader(format: format, name: format.loader, available: found != nil,
                          enabled: found.map { !$0.blocked } ?? false)
        }
        let others = families.filter { loader in !InputFormat.allCases.contains { $0.loader == loader.nickname } }
            .sorted { $0.nickname < $1.nickname }
            .map { Loader(format: nil, name: $0.nickname, available: true, enabled: !$0.blocked) }
        let savers = OutputFormat.allCases.map { format in
            let name = (format == .avif ? "heif" : format.rawValue) + "save_buffer"
            let available = vips_type_find("VipsForeignSave", name) != 0
            return Saver(format: format, name: name, available: available,
                         av1Encoder: format == .avif && available ? encodesAVIF() : nil)
        }
        var capabilities = VipsCapabilities(version: VipsRuntime.version, loaders: known + others, savers: savers)
        capabilities.nativeResample = VipsResampleCheck.verdict.agrees
        capabilities.resampler = VipsResampleCheck.verdict.summary
        return capabilities
    }

    /// One concrete loader class, as libvips registered it.
    private struct LoaderClass {
        var nickname: String
        /// The class its variants share (`VipsForeignLoadSvg` for `svgload`, `svgload_buffer`, ...).
        var family: String
        var blocked: Bool
    }

    /// Every concrete `VipsForeignLoad` class but `rawload` (which `vips_foreign_map` leaves out,
    /// since it cannot sniff a file).
    private static func loaderClasses() -> [LoaderClass] {
        var found: [LoaderClass] = []
        withUnsafeMutablePointer(to: &found) { list in
            // A C callback cannot capture, so the list travels as the `a` argument.
            _ = vips_foreign_map("VipsForeignLoad", { item, list, _ in
                guard let item, let list else { return nil }
                // Every GObject class struct begins with its parents' structs, as C's casts assume.
                let operation = item.load(as: VipsOperationClass.self)
                let type = item.load(as: GTypeClass.self).g_type
                let loader = LoaderClass(
                    nickname: operation.parent_class.nickname.map { String(cString: $0) } ?? "",
                    family: VipsRuntime.loaderFamily(of: type),
                    blocked: operation.flags.rawValue & VIPS_OPERATION_BLOCKED.rawValue != 0)
                list.assumingMemoryBound(to: [LoaderClass].self).pointee.append(loader)
                return nil
            }, list, nil)
        }
        return found.filter { !$0.nickname.isEmpty }
    }

    /// Whether a 16×16 grey image encodes as AVIF, through the encoder thumbgen uses.
    private static func encodesAVIF() -> Bool {
        let pixels = [UInt8](repeating: 128, count: 16 * 16 * 3)
        let pointer = pixels.withUnsafeBytes { bytes in
            vips_image_new_from_memory_copy(bytes.baseAddress, bytes.count, 16, 16, 3, VIPS_FORMAT_UCHAR)
        }
        guard let pointer else {
            _ = VipsErrorBuffer.take()
            return false
        }
        let image = VipsImageRef(owning: pointer)
        let encoded = try? StageWatch.run("encode", seconds: 60, cancellation: nil, onOverrun: { _ in }) {
            watch throws(ImagingError) -> Data in
            try ImageEncoder().encode(image, as: .avif, quality: nil, options: EncodingOptions(), watch: watch)
        }
        return encoded != nil
    }
}
