import Foundation

/// One row's encoded output, made in process or by a worker, on its way to the write.
struct EncodedOutput: Sendable {
    /// The encoded bytes.
    var data: Data
    /// The output's size.
    var width: Int
    var height: Int
    /// The format the bytes are in.
    var format: OutputFormat
    /// The key it is stored under in the cache (nil without a cache).
    var cacheKey: OutputKey?
    /// The placeholder made from its pixels, if this output made its source's.
    var placeholder: Placeholder?
    /// Whether its source's placeholder would have been made from its pixels, and was not
    /// (`SourceRender.Output.owesPlaceholder`).
    var owesPlaceholder = false
    /// The part of the source it shows, when not all of it.
    var cropBox: CropBox?
}

extension EncodedOutput {
    /// What `job` gets of an output made from `bytes` (`SourceRender`'s, in process or sent by a
    /// worker), its stage times recorded; keyed here, where the cache is (and hashed by its
    /// write, never by a worker: a digest a worker sent could not be trusted). Nil, with the
    /// job failed, when the source changed while it was read.
    static func accepted(_ output: SourceRender.Output, for job: Job, bytes: SourceBytes,
                         strictness: DecodeStrictness) -> EncodedOutput? {
        job.record(\.decode, milliseconds: output.decodeMilliseconds)
        job.record(\.render, milliseconds: output.renderMilliseconds)
        if let changed = LocalFileCheck.changedWhileRead(path: bytes.path, stamp: bytes.stamp,
                                                         src: job.request.sourceText) {
            job.advance(.failed(changed))
            return nil
        }
        return EncodedOutput(data: output.data, width: output.width, height: output.height, format: output.format,
                             cacheKey: bytes.digest.map {
                                 OutputKey(sourceDigest: $0, request: job.request, strictness: strictness)
                             }, placeholder: output.placeholder, owesPlaceholder: output.owesPlaceholder,
                             cropBox: output.cropBox)
    }
}
