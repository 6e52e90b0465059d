import { McpServer, inputRequired, acceptedContent, inputResponse } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const server = new McpServer({ name: 'asker', version: '1.0.0' });
server.registerTool('ask_name', {
  description: 'Asks the person for their name and greets them.',
  inputSchema: z.object({}),
}, async (_args, ctx) => {
  const got = acceptedContent(ctx.mcpReq.inputResponses, 'who');
  if (!got) {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'who');
    if (view && view.kind !== 'missing') {
      return { content: [{ type: 'text', text: `no name given (${JSON.stringify(view)})` }] };
    }
    return inputRequired({ inputRequests: { who: inputRequired.elicit({
      message: 'Who is asking?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
    }) } });
  }
  return { content: [{ type: 'text', text: `hello ${got.name}` }] };
});
await server.connect(new StdioServerTransport());
