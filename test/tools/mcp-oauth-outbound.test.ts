// Which authorization servers agentd asks for an MCP server: https, or http on loopback; and one on
// this machine or a private network only for an MCP server there too, so that a remote server's
// metadata cannot aim agentd's OAuth requests at agentd's own neighbours (blind request forgery).
import { describe, expect, it } from 'vitest';
import { checkedAuthorizationServer, McpOAuthError } from '../../src/tools/mcp/oauth/outbound.js';

const remote = new URL('https://mcp.example.com/mcp');
const local = new URL('http://127.0.0.1:8123/mcp');
const lan = new URL('https://10.1.2.3/mcp');

describe('checkedAuthorizationServer', () => {
  it('takes an https server for a remote MCP server, and loopback ones for a loopback MCP server', () => {
    expect(checkedAuthorizationServer('https://auth.example.com/', remote).origin).toBe(
      'https://auth.example.com',
    );
    expect(checkedAuthorizationServer('http://localhost:9000/', local).origin).toBe('http://localhost:9000');
    expect(checkedAuthorizationServer('http://127.0.0.1:9000/', local).origin).toBe('http://127.0.0.1:9000');
    expect(checkedAuthorizationServer('https://10.9.9.9/', lan).origin).toBe('https://10.9.9.9');
  });

  it.each([
    'http://localhost:9000/',
    'http://127.0.0.1:9000/',
    'http://[::1]:9000/',
    'https://localhost/',
    'https://app.localhost/',
    'https://127.1.2.3/',
    'https://0x7f000001/', // 127.0.0.1 written another way
    'https://[::ffff:127.0.0.1]/',
    'https://10.0.0.8/',
    'https://172.20.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/', // cloud metadata
    'https://100.64.0.1/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
  ])('refuses %s for a remote MCP server', (named) => {
    expect(() => checkedAuthorizationServer(named, remote)).toThrow(McpOAuthError);
    expect(() => checkedAuthorizationServer(named, remote)).toThrow(/on this machine or a private network/);
  });

  it('refuses plain http anywhere but loopback, and what is not a URL', () => {
    expect(() => checkedAuthorizationServer('http://auth.example.com/', remote)).toThrow(/only https/);
    expect(() => checkedAuthorizationServer('http://10.9.9.9/', lan)).toThrow(/only https/);
    expect(() => checkedAuthorizationServer('not a url', remote)).toThrow(/not a URL/);
  });
});
