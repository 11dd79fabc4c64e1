grade --golden key.csv cy.csv -f prairielearn -o results.json
