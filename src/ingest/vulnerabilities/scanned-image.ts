/**
 * Builds the scanned image from what a scanner says about it: the reference it was asked to scan,
 * the repo digests and tags the registry or engine knew, and the config digest. The registry
 * digest is what a running container's `imageID` carries, so it is chosen with care: the digest
 * written in the reference itself, else the repo digest of the same repository, else the first.
 */
import { type Fields, itemPath, quote } from './fields.js';
import { digestOf, isDigest, parseImageReference } from './image-reference.js';
import type { ScannedImage } from './model.js';

export interface ImageEvidence {
  reference: string | null;
  referencePath: string;
  repoDigests: string[];
  repoDigestsPath: string;
  repoTags: string[];
  imageId: string | null;
  imageIdPath: string;
  /** A registry digest known from elsewhere (Grype `manifestDigest`, a CycloneDX purl or hash). */
  otherDigest?: string | null;
}

export function scannedImage(fields: Fields, evidence: ImageEvidence): ScannedImage {
  const repoDigests = evidence.repoDigests.map((value, index) => {
    const digest = digestOf(value);
    if (!digest) {
      fields.fail(
        itemPath(evidence.repoDigestsPath, index),
        'invalid_format',
        `is ${quote(value)}, expected repository@sha256:<64 hex digits>`,
      );
    }
    return { value, digest, repository: parseImageReference(value)?.repository ?? null };
  });
  if (evidence.imageId !== null && !isDigest(evidence.imageId)) {
    fields.fail(
      evidence.imageIdPath,
      'invalid_format',
      `is ${quote(evidence.imageId)}, expected sha256:<64 hex digits>`,
    );
  }
  const parsedTags = evidence.repoTags.map(parseImageReference);
  const parsed =
    (evidence.reference ? parseImageReference(evidence.reference) : null) ??
    parsedTags.find((tag) => tag !== null) ??
    null;
  const digest =
    parsed?.digest ??
    repoDigests.find((entry) => entry.repository === parsed?.repository)?.digest ??
    repoDigests[0]?.digest ??
    evidence.otherDigest ??
    null;
  const tag =
    parsed?.tag ??
    parsedTags.find((entry) => entry?.repository === parsed?.repository && entry?.tag)?.tag ??
    null;
  if (!parsed && !digest) {
    const what =
      evidence.reference === null ? 'is missing' : `is ${quote(evidence.reference)}, not an image reference,`;
    fields.fail(evidence.referencePath, 'invalid_value', `${what} and no repo digest or tag names the image`);
  }
  return {
    reference: evidence.reference,
    name: parsed?.name ?? null,
    registry: parsed?.registry ?? null,
    repository: parsed?.repository ?? null,
    tag,
    digest,
    imageId: evidence.imageId,
    repoDigests: repoDigests.map((entry) => entry.value),
    repoTags: evidence.repoTags,
  };
}
