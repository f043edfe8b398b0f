export {
  ARCHIVE_FORMATS,
  type Archive,
  type ArchiveFormat,
  archiveDirectory,
  DEFAULT_EXCLUDES,
} from './archive.js';
export { type HomeListing, homeListing, type SubdirPage, subdirPage } from './browse.js';
export { absolutePath, FileOperationError, MAX_PATH_LENGTH } from './errors.js';
export { type TrajectorySource, trajectoryZip } from './trajectory.js';
export { createDirectory, type Download, openDownload, saveUpload } from './transfer.js';
