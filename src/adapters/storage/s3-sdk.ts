/**
 * Lazy loader for the AWS SDK packages behind the S3 storage. They are optional dependencies:
 * importing `fileconv/storage/s3` loads none of them, the first storage call does, and a missing
 * package becomes an ENGINE_UNAVAILABLE error that says what to install.
 */
import { FileconvError } from '../../core/errors.js';
import { npmInstall } from '../../kit/engine-packages.js';

export type S3ClientModule = typeof import('@aws-sdk/client-s3');
export type S3PresignerModule = typeof import('@aws-sdk/s3-request-presigner');
export type S3LibStorageModule = typeof import('@aws-sdk/lib-storage');

export interface S3Sdk {
  client: S3ClientModule;
  presigner: S3PresignerModule;
  libStorage: S3LibStorageModule;
}

export const S3_SDK_INSTALL = npmInstall([
  '@aws-sdk/client-s3',
  '@aws-sdk/s3-request-presigner',
  '@aws-sdk/lib-storage',
]);

/** How each package is imported; a parameter so a test can simulate a missing one. */
export interface S3SdkImporters {
  client: () => Promise<S3ClientModule>;
  presigner: () => Promise<S3PresignerModule>;
  libStorage: () => Promise<S3LibStorageModule>;
}

const DEFAULT_IMPORTERS: S3SdkImporters = {
  client: () => import('@aws-sdk/client-s3'),
  presigner: () => import('@aws-sdk/s3-request-presigner'),
  libStorage: () => import('@aws-sdk/lib-storage'),
};

function sdkUnavailable(cause: unknown): FileconvError {
  const missing = (cause as { code?: unknown } | null)?.code;
  const reason =
    missing === 'ERR_MODULE_NOT_FOUND' || missing === 'MODULE_NOT_FOUND'
      ? 'is not installed'
      : 'failed to load';
  return new FileconvError(
    'ENGINE_UNAVAILABLE',
    `The S3 storage needs the AWS SDK, which ${reason}: run \`${S3_SDK_INSTALL}\``,
    { cause, details: { install: S3_SDK_INSTALL } },
  );
}

/** Imports the three packages; ENGINE_UNAVAILABLE naming all of them when any fails. */
export async function importS3Sdk(importers: S3SdkImporters = DEFAULT_IMPORTERS): Promise<S3Sdk> {
  try {
    const [client, presigner, libStorage] = await Promise.all([
      importers.client(),
      importers.presigner(),
      importers.libStorage(),
    ]);
    return { client, presigner, libStorage };
  } catch (error) {
    throw sdkUnavailable(error);
  }
}

let loaded: Promise<S3Sdk> | undefined;

/** The SDK, imported once per process. A failure is not cached, so installing it later helps. */
export function loadS3Sdk(): Promise<S3Sdk> {
  loaded ??= importS3Sdk().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}
