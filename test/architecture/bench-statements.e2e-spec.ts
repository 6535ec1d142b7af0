import * as baseline from '../../bench/baseline/sql.js';
import { PlaybackPositionRepository } from '../../src/modules/playback/domain/playback-position.repository.js';
import { ReadingProgressRepository } from '../../src/modules/reading/domain/reading-progress.repository.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The bench's bare baseline runs copies of the service's hot statements (it loads no Nest,
 * so it cannot compose them as the service does, ADR 0025). A copy that drifted would make
 * the bench compare unequal work: this fails first.
 */
const t = useTestApp();

type Composed = { statements: Record<string, { text: string }> };
const textsOf = (repository: object) =>
  Object.fromEntries(Object.entries((repository as Composed).statements).map(([name, statement]) => [name, statement.text]));

it('copies the reading and playback statements exactly', () => {
  const reading = textsOf(t.app.get(ReadingProgressRepository));
  const playback = textsOf(t.app.get(PlaybackPositionRepository));
  expect({
    reader: baseline.READER.text,
    readers: baseline.READER_LIST.text,
    positionWithReader: baseline.POSITION_WITH_READER.text,
    usualSave: baseline.UPSERT_POSITION_IF_LISTENING_RECORDED.text,
    firstSaveOfDay: baseline.UPSERT_LISTENING_IF_RELEASED.text,
  }).toEqual({
    reader: reading.reader,
    readers: reading.readers,
    positionWithReader: playback.positionWithReader,
    usualSave: playback.usualSave,
    firstSaveOfDay: playback.firstSaveOfDay,
  });
});
