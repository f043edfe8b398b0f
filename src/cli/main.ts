console.log('agentd');
