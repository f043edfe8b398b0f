// The caller's provider connections (provider-connections.ts): list, create, change, delete, each a
// write of the settings document in the user's turn, the key sealed for the user and never returned.
import { randomUUID } from 'node:crypto';
import { defaults, SettingsDocuments } from './documents.js';
import { InvalidSettingsError } from './parse.js';
import {
  type ConnectionCreateRequest,
  ConnectionNotFoundError,
  type ConnectionResponse,
  type ConnectionUpdateRequest,
  connectionOf,
  connectionResponse,
  connectionsOf,
  type StoredConnection,
  withConnection,
  withoutConnection,
} from './provider-connections.js';
import { REDACTED } from './sdk-schemas.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);

export abstract class ProviderConnectionSettings extends SettingsDocuments {
  async listConnections(userId: string): Promise<ConnectionResponse[]> {
    return connectionsOf((await this.read(userId)) ?? {}).map(connectionResponse);
  }

  /** A new connection (ConnectionConflictError past MAX_CONNECTIONS). */
  async createConnection(userId: string, request: ConnectionCreateRequest): Promise<ConnectionResponse> {
    return this.serialize(userId, async () => {
      const now = nowSeconds();
      const connection: StoredConnection = {
        id: randomUUID().replaceAll('-', ''),
        display_name: request.display_name,
        provider: request.provider ?? 'custom',
        api_key: this.sealer(userId)(request.api_key),
        base_url: request.base_url ?? null,
        created_at: now,
        updated_at: now,
      };
      await this.write(userId, withConnection((await this.read(userId)) ?? defaults(), connection));
      return connectionResponse(connection);
    });
  }

  /**
   * Changes the members given (a key cannot be cleared, only replaced; `**********` keeps it);
   * ConnectionNotFoundError, InvalidSettingsError for nothing to change or a null key.
   */
  async updateConnection(
    userId: string,
    id: string,
    request: ConnectionUpdateRequest,
  ): Promise<ConnectionResponse> {
    const refuse = (loc: string[], msg: string): never => {
      throw new InvalidSettingsError([{ loc, msg, type: 'value_error' }]);
    };
    if (Object.keys(request).length === 0)
      refuse([], 'Provide at least one provider connection field to update');
    if (request.api_key === null)
      refuse(['api_key'], 'api_key cannot be cleared; provide a new key to rotate it');
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const current = connectionOf(doc, id);
      if (!current) throw new ConnectionNotFoundError(id);
      const { api_key, ...members } = request;
      const next: StoredConnection = {
        ...current,
        ...members,
        base_url: members.base_url === undefined ? current.base_url : members.base_url,
        api_key: !api_key || api_key === REDACTED ? current.api_key : this.sealer(userId)(api_key),
        updated_at: nowSeconds(),
      };
      await this.write(userId, withConnection(doc, next));
      return connectionResponse(next);
    });
  }

  /** Deletes one (ConnectionNotFoundError; ConnectionConflictError while profiles name it); answers it. */
  async deleteConnection(userId: string, id: string): Promise<ConnectionResponse> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const current = connectionOf(doc, id);
      if (!current) throw new ConnectionNotFoundError(id);
      await this.write(userId, withoutConnection(doc, id));
      return { ...connectionResponse(current), api_key_set: false };
    });
  }
}
